// Child processes of the benchmarks: servers started fresh, told apart by pid, read through /proc.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './corpus.js';

export interface Server {
  name: string;
  pid: number;
  port: number;
  origin: string;
  /** The rest of the LISTENING line (a note on how it runs). */
  note: string;
  stop(): Promise<void>;
}

/**
 * Starts `node <script> ...args` for a compiled `.js` script, `node --import tsx <script>` for a
 * `.ts` one (the server itself is the pid: no npx/tsx wrapper process between), stdout to
 * /dev/null (request logs cost the server, not us), and waits for "LISTENING <port>" on its stderr.
 */
export function startServer(name: string, script: string, args: string[] = [], env: Record<string, string> = {}): Promise<Server> {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, path.join(REPO_ROOT, script), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    let listening = false;
    const timer = setTimeout(() => fail(new Error(`${name} did not start in 30 s: ${seen.slice(-500)}`)), 30_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    child.once('exit', (code) => fail(new Error(`${name} exited (${code}) before listening: ${seen.slice(-500)}`)));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      if (seen.length < 20_000) seen += text;
      const match = /LISTENING (\d+)(.*)/.exec(seen);
      if (match && !listening) {
        listening = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        const port = Number(match[1]);
        resolve({ name, pid: child.pid!, port, origin: `http://127.0.0.1:${port}`, note: match[2]!.trim(), stop: () => stop(child) });
        seen = '';
      }
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** VmHWM (peak resident set) and VmRSS of a live process, in MB. */
export function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
}

/** CPU time (user + system) a live process has used so far, in ms; from /proc/<pid>/stat. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return (ticks * 1000) / CLOCK_TICKS;
}

/** USER_HZ: 100 on Linux everywhere Node runs in practice. */
const CLOCK_TICKS = 100;
