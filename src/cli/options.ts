import { type Command, InvalidArgumentError, Option } from 'commander';
import { type Config, makeConfig } from '../config/config.js';
import { ConfigError, SETTING_KEYS, SETTINGS, type Setting, type SettingGroup, setAt } from '../config/settings.js';

/** The parsed options of a command: commander's attribute names ("dataDir", "tls") to config values. */
export type SettingOptions = Record<string, unknown>;

/** Commander turns a parsed null into "" or true: a null value ("--metrics-listen off") travels as this. */
const NULL = Symbol('null');

/** The commander option of a setting: its flag, variable, default, choices and parser. */
function optionOf(s: Setting): Option {
  const option = new Option(s.flag, s.help).env(s.env);
  if (s.choices) option.choices(s.choices);
  if (s.default !== undefined && !s.flag.startsWith('--no-')) option.default(s.default, s.shown);
  if (s.parse) {
    const parse = s.parse;
    option.argParser((text: string, previous: unknown) => {
      try {
        return parse(text, (previous ?? s.default) as never) ?? NULL;
      } catch (err) {
        // commander says which option and value; a ConfigError already names the flag itself.
        if (err instanceof ConfigError && /^--/.test(err.message)) throw err;
        throw new InvalidArgumentError((err as Error).message);
      }
    });
  }
  return option;
}

/** Adds the options of these groups of settings (SETTINGS) to a command. */
export function addSettings(command: Command, ...groups: SettingGroup[]): Command {
  for (const key of SETTING_KEYS) {
    const s: Setting = SETTINGS[key];
    if (groups.includes(s.group)) command.addOption(optionOf(s));
  }
  return command;
}

/** A command that opens a store it did not start: a mistyped --data-dir is an error, not a new empty store. */
const withCreate = (command: Command) =>
  command.option('--create', 'make a new, empty store when --data-dir holds none (else that is an error)');

/** Options every command that opens the store takes. */
export const addStoreOptions = (command: Command) => addSettings(command, 'store');
/** Options of the commands that may start a store (users add, users import): --create too. */
export const addStoreCreatingOptions = (command: Command) => withCreate(addStoreOptions(command));
/** Options of the commands that hash new passwords. */
export const addHashOptions = (command: Command) => addSettings(command, 'hash');
/** Options of the commands that use the signing keys. */
export const addKeyOptions = (command: Command) => withCreate(addSettings(command, 'store', 'keys'));
/** Options of the commands that make signing keys. */
export const addKeyRotationOptions = (command: Command) =>
  withCreate(addSettings(command, 'store', 'keys', 'rotation'));
/** The options of `tessera serve`, each with its environment variable. */
export const addServeOptions = (command: Command) => addSettings(command, 'store', 'keys', 'rotation', 'hash', 'serve');

/** The config of what a command was given: each setting it takes from its option, the defaults for the rest. */
export function configFromOptions(options: SettingOptions): Config {
  // biome-ignore lint/suspicious/noExplicitAny: filled key by key, then checked as a whole by the config schema
  const given: Record<string, any> = {};
  for (const key of SETTING_KEYS) {
    const s: Setting = SETTINGS[key];
    const value = options[new Option(s.flag).attributeName()];
    if (value !== undefined) setAt(given, key, value === NULL ? null : value);
    else if (s.valueEnv && process.env[s.valueEnv]) setAt(given, key, process.env[s.valueEnv]);
  }
  return makeConfig(given);
}
