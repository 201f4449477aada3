import Type from 'typebox';
import { checkBundle } from '../../certs/trusted-ca.js';
import { ClusterCertificateError } from '../../errors.js';
import { SSO_CERTIFICATES, type SsoCertificateName } from '../../sso/sso-certificates.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** The cluster certificates Tessera keeps: its REST API's own (`api`), the trusted CA, SSO's two. */
const KEPT = ['api', 'mtls_trusted_ca', ...SSO_CERTIFICATES] as const;
type Kept = (typeof KEPT)[number];
const isKept = (name: string): name is Kept => (KEPT as readonly string[]).includes(name);
/** The product's other certificate names (its certificates table): its own servers', which Tessera does not keep. */
const PRODUCTS_OWN = [
  'ccs_internode_encryption',
  'cm',
  'data_internode_encryption',
  'ldap_client',
  'metrics_exporter',
  'proxy',
  'syncer',
];
const unknown = (name: string) =>
  new ClusterCertificateError(
    'unknown_certificate',
    `Tessera keeps the cluster certificates ${KEPT.join(', ')}; "${name}" is not one of its own`,
  );

const Certificate = Type.Object(
  {
    name: Type.String({
      maxLength: 64,
      description:
        "api: the REST API's own TLS certificate (with its key; every node serves it to new connections); mtls_trusted_ca: the CA(s) client certificates must chain to; sso_service: Tessera's SAML certificate (with its key); sso_issuer: the identity provider's",
    }),
    certificate: Type.String({ maxLength: 262_144, description: 'PEM' }),
    key: Type.Optional(Type.String({ maxLength: 65_536, description: 'PEM private key: api and sso_service only' })),
  },
  { additionalProperties: false },
);
/** Room for a few certificates with their chains and keys, far below what would cost much to check. */
const CERTIFICATES_BODY_LIMIT = 65_536;

type CertificateBody = { name: string; certificate: string; key?: string };

/**
 * /v1/cluster/certificates (7.22.2+) and /v1/cluster/update_cert (before): the REST API's own
 * certificate (`api`, served by every node's listener), the trusted CA for client certificates
 * and the two SSO certificates, as the product sets them (every one checked before any is set),
 * and the rotation of the API's self-signed one. Other names are the product's own servers'
 * (cm, proxy, …): 403 `unknown_certificate`; deleting a name that is no certificate of the product's is
 * 404 `not_found`, as the product. A private key is never answered.
 */
export function clusterCertificatesRoutes(
  app: TesseraApp,
  {
    certificateTrust,
    apiCertificate,
    sso,
    clock,
  }: Pick<HttpServices, 'certificateTrust' | 'apiCertificate' | 'sso' | 'clock'>,
): void {
  const doc = { tags: ['cluster'], security: CALLER };
  const check = (c: CertificateBody) => {
    if (!isKept(c.name)) throw unknown(c.name);
    if (c.name === 'api') apiCertificate.check(c.certificate, c.key);
    else if (c.name === 'mtls_trusted_ca') {
      try {
        checkBundle(c.certificate, new Date(clock()));
      } catch (err) {
        // Among several certificates of one request, the answer says which one is wrong.
        if (err instanceof ClusterCertificateError)
          throw new ClusterCertificateError(err.code as 'invalid_certificate', `${c.name}: ${err.message}`);
        throw err;
      }
    } else sso.checkCertificate(c.name, c.certificate, c.key);
  };
  const set = async (c: CertificateBody, request: Parameters<typeof callerOf>[0]) => {
    if (c.name === 'api') await apiCertificate.set(callerOf(request), c.certificate, c.key, contextOf(request));
    else if (c.name === 'mtls_trusted_ca')
      await certificateTrust.set(callerOf(request), c.certificate, contextOf(request));
    else
      await sso.setCertificate(
        callerOf(request),
        c.name as SsoCertificateName,
        c.certificate,
        c.key,
        contextOf(request),
      );
  };
  const errors = {
    access: 'update_cluster' as const,
    errors: ['unknown_certificate' as const, 'invalid_certificate' as const, 'expired_certificate' as const],
  };
  app.get(
    '/v1/cluster/certificates',
    {
      config: { access: 'view_cluster_info' },
      schema: {
        ...doc,
        summary:
          "The cluster's certificates that Tessera keeps, each when set: api_cert (the one the REST API serves), mtls_trusted_ca_cert, sso_service_cert, sso_issuer_cert — never a key (view_cluster_info)",
        response: {
          200: Type.Object({
            api_cert: Type.Optional(Type.String()),
            mtls_trusted_ca_cert: Type.Optional(Type.String()),
            sso_service_cert: Type.Optional(Type.String()),
            sso_issuer_cert: Type.Optional(Type.String()),
          }),
        },
      },
    },
    async () => {
      const [api, pem] = await Promise.all([apiCertificate.pem(), certificateTrust.pem()]);
      return {
        ...(api && { api_cert: api }),
        ...(pem && { mtls_trusted_ca_cert: pem }),
        ...(await sso.certificatesView()),
      };
    },
  );
  app.put(
    '/v1/cluster/certificates',
    {
      config: errors,
      // A server certificate's chain and an RSA-4096 key run past the 8 KiB of an API body.
      bodyLimit: CERTIFICATES_BODY_LIMIT,
      schema: {
        ...doc,
        summary:
          'Set cluster certificates: {"certificates": [{"name": "api" | "mtls_trusted_ca" | "sso_service" | "sso_issuer", "certificate": PEM, "key"?: PEM}]}, all checked before any is set; api is served to new connections at once here, within a second or two on other nodes (update_cluster: admin)',
        body: Type.Object(
          { certificates: Type.Array(Certificate, { minItems: 1, maxItems: 16 }) },
          { additionalProperties: false },
        ),
        response: { 200: Ok },
      },
    },
    async (request) => {
      for (const c of request.body.certificates) check(c);
      for (const c of request.body.certificates) await set(c, request);
      return {};
    },
  );
  app.put(
    '/v1/cluster/update_cert',
    {
      config: errors,
      // A server certificate's chain and an RSA-4096 key run past the 8 KiB of an API body.
      bodyLimit: CERTIFICATES_BODY_LIMIT,
      schema: {
        ...doc,
        summary: "As PUT /v1/cluster/certificates, one certificate (the product's path before 7.22.2)",
        body: Certificate,
        response: { 200: Ok },
      },
    },
    async (request) => {
      check(request.body);
      await set(request.body, request);
      return {};
    },
  );
  app.delete(
    '/v1/cluster/certificates/:name',
    {
      config: { access: 'update_cluster', errors: ['unknown_certificate', 'not_found'] },
      schema: {
        ...doc,
        summary:
          "Remove a certificate: api (each node serves what it started with again: --tls-cert or its self-signed one), mtls_trusted_ca (no client certificate logs in then, certificate users' tokens end), sso_service or sso_issuer (SSO sign-ins stop; SSO users' tokens end) (update_cluster: admin)",
        params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
        response: { 200: Ok },
      },
    },
    async (request) => {
      const { name } = request.params;
      // The product: 403 for a certificate it needs, 404 for a name that is no certificate at all.
      if (!isKept(name) && !PRODUCTS_OWN.includes(name))
        throw new ClusterCertificateError('not_found', `There is no cluster certificate named "${name}"`);
      if (!isKept(name)) throw unknown(name);
      if (name === 'api') await apiCertificate.clear(callerOf(request), contextOf(request));
      else if (name === 'mtls_trusted_ca') await certificateTrust.clear(callerOf(request), contextOf(request));
      else await sso.clearCertificate(callerOf(request), name, contextOf(request));
      return {};
    },
  );
  app.post(
    '/v1/cluster/certificates/rotate',
    {
      config: { access: 'update_cluster', errors: ['rotation_unsupported'] },
      schema: {
        ...doc,
        summary:
          'Regenerate the internal certificates: the REST API\'s self-signed one (`api`) made anew — new key, the same names, valid a year — and served by every node, while the one in use is self-signed; one an operator gave is 403 rotation_unsupported (PUT a new one instead). {"name"?: "api"} (update_cluster: admin)',
        body: Type.Object(
          { name: Type.Optional(Type.String({ maxLength: 64, description: 'only this certificate: api' })) },
          { additionalProperties: false },
        ),
        response: { 200: Ok },
      },
    },
    async (request) => {
      const name = request.body?.name;
      if (name !== undefined && name !== 'api')
        throw new ClusterCertificateError(
          'rotation_unsupported',
          `Tessera makes one internal certificate, api; "${name}" is not one it rotates`,
        );
      await apiCertificate.rotate(callerOf(request), contextOf(request));
      return {};
    },
  );
}
