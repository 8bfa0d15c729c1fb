// The library's options: the service's settings (config.ts) by their Config names, typed. They are
// not declared a second time: the options are read through the same table as the environment
// (config.ts SETTINGS), so defaults and checks are the service's own, and every message names
// settings as the caller wrote them (fetchTimeoutMs, never FETCH_TIMEOUT_MS).

import { ConfigError, readSettings, SETTINGS, type Config, type ServiceSetting, type SettingName } from '../config.js';

/**
 * The engine's settings, each the environment variable of the same name in camelCase
 * (README "Settings"), with the same default and the same check: `fetchTimeoutMs` is
 * FETCH_TIMEOUT_MS, `dnsServers` is DNS_SERVERS as a list. Unset means the default.
 */
export type LinkPeekOptions = { [K in Exclude<keyof Config, ServiceSetting>]?: Config[K] | undefined };

/** fetchTimeoutMs → FETCH_TIMEOUT_MS: the setting's environment variable. */
export function envName(option: SettingName): string {
  return SETTINGS[option].env;
}

function isOption(name: string): name is Exclude<SettingName, ServiceSetting> {
  return Object.hasOwn(SETTINGS, name) && !('service' in SETTINGS[name as SettingName]);
}

/** Every setting at its default: the kinds of the options' values. */
let defaults: Config | undefined;

/**
 * Each option's value as the table reads it (the text the environment would give); a value of
 * the wrong kind is refused here.
 */
function optionTexts(options: object): Partial<Record<SettingName, string>> {
  defaults ??= readSettings({ text: () => undefined, name: (setting) => setting });
  const texts: Partial<Record<SettingName, string>> = {};
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || value === null) continue;
    if (!isOption(name)) throw new ConfigError(name, 'is not an option of the engine (README "Settings")');
    const expected = typeof defaults[name];
    if (name === 'dnsServers') {
      if (!Array.isArray(value) || value.some((s) => typeof s !== 'string')) throw new ConfigError(name, 'must be a list of strings');
      texts[name] = value.join(',');
    } else if (typeof value === expected || (expected === 'object' && typeof value === 'string')) {
      texts[name] = String(value);
    } else {
      throw new ConfigError(name, `must be a ${expected === 'object' ? 'string' : expected}, not ${JSON.stringify(value)}`);
    }
  }
  return texts;
}

/**
 * What the library does unless told otherwise, where it differs from the service: it scans on the
 * caller's thread (scanWorkers 0), since one page at a time gains nothing from a thread and a
 * caller's process should not start threads it did not ask for.
 */
const LIBRARY_DEFAULTS: Partial<Record<SettingName, string>> = { scanWorkers: '0' };

/** The engine's Config from the library's options; the HTTP-only settings stay at their defaults. */
export function configFromOptions(options: LinkPeekOptions = {}): Config {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'must be an object');
  const texts = { ...LIBRARY_DEFAULTS, ...optionTexts(options) };
  return readSettings({ text: (setting) => texts[setting], name: (setting) => setting });
}
