// A listener that cannot start is a setting that cannot be used: one line naming it, as for every
// other bad setting (config-reader.ts), never a stack trace.

import { ConfigError } from './config-reader.js';

/** Which settings chose the address a listener failed to take. */
interface Listener {
  portSetting: 'PORT' | 'METRICS_PORT';
  port: number;
  host: string;
}

/** The ConfigError a failed listen(...) stands for, or null for an error no setting explains. */
export function listenError(err: unknown, { portSetting, port, host }: Listener): ConfigError | null {
  switch ((err as { code?: unknown } | null)?.code) {
    case 'EADDRINUSE':
      return new ConfigError(portSetting, `port ${port} is already in use on ${host}; choose another ${portSetting} or stop what holds it`);
    case 'EACCES':
      return new ConfigError(portSetting, `port ${port} on ${host} needs privileges this process does not have; choose a port above 1023`);
    case 'EADDRNOTAVAIL':
      return new ConfigError('HOST', `${host} is not an address of this machine`);
    default:
      return null;
  }
}
