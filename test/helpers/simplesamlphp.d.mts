/** Debian's SimpleSAMLphp web root. */
export declare const SSP_WWW: string;
/** What makes it run, as apt-get installs it: simplesamlphp php-cli php-xml php-mbstring. */
export declare const SSP_PACKAGES: string[];

export interface IdpUser {
  username: string;
  password: string;
  email: string;
  firstName?: string;
  lastName?: string;
  /** redisRoleMapping: role uids (as the identity provider sends them, strings). */
  roles?: string[];
}

export interface TestIdp {
  /** The IdP's entity ID (also where its metadata is). */
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  sloUrl: string;
  /** Its signing certificate and key (PEM): the key lets a test sign what the IdP never would. */
  certificate: string;
  key: string;
  /** Lets this service provider in: its entity ID, consumer, logout URL and certificate (for its signed requests). */
  trustSp(sp: { entityId: string; acsUrl: string; sloUrl: string; certificate: string }): void;
  metadataXml(): Promise<string>;
  stop(): Promise<void>;
}

/** The Debian packages a real SAML identity provider still needs here (none: it can run). */
export declare function simpleSamlPhpMissing(): string[];
/** A self-signed RSA certificate and its key (`<name>.crt`, `<name>.key` in `dir`), made with openssl. */
export declare function selfSigned(
  dir: string,
  name: string,
  cn: string,
  days?: number,
): { certificate: string; key: string };
/** SimpleSAMLphp under PHP's built-in server, on a free port, with these users; stop() removes it all. */
export declare function startIdp(users: IdpUser[]): Promise<TestIdp>;
