/** The product's `ldap_mapping`: a directory group and the roles its members get. */
export interface LdapMapping {
  uid: number;
  name: string;
  /** The group's DN. */
  dn: string;
  role_uids: number[];
  email: string;
  email_alerts: boolean;
  cluster_email_alerts: boolean;
  bdbs_email_alerts?: string[];
}

export type LdapMappingInput = Omit<LdapMapping, 'uid'>;

/** Reads and writes mappings. */
export interface LdapMappingStore {
  list(): Promise<LdapMapping[]>;
  get(uid: number): Promise<LdapMapping | undefined>;
  /** Throws UserAlreadyExistsError (name_already_exists) when the name is taken. */
  create(mapping: LdapMappingInput): Promise<LdapMapping>;
  update(uid: number, mapping: LdapMappingInput): Promise<void>;
  delete(uid: number): Promise<boolean>;
}
