export declare const SLAPD: string;
export declare const BASE_DN: string;
export declare const ROOT_DN: string;
export declare const ROOT_PASSWORD: string;

export interface Directory {
  /** ldap://127.0.0.1:port */
  url: string;
  port: number;
  /** Adds, modifies or deletes entries: LDIF as ldapmodify takes it. */
  modify(ldif: string): Promise<void>;
  stop(): Promise<void>;
}

export interface DirectoryOptions {
  /** PEM files of the server's certificate and key, for StartTLS. */
  tls?: { certFile: string; keyFile: string };
  /** false: anonymous clients may bind and read nothing, as Active Directory's default (default true). */
  anonymousRead?: boolean;
}

export declare function slapdAvailable(): boolean;
export declare function startDirectory(seed: string, options?: DirectoryOptions): Promise<Directory>;
export declare function person(uid: string, password: string): string;
export declare function group(cn: string, members: string[]): string;
export declare function groupDn(cn: string): string;
export declare function directorySettings(url: string, extra?: Record<string, unknown>): Record<string, unknown>;
