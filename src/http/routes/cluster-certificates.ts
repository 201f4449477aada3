import Type from 'typebox';
import {
  assertDeletable,
  CLUSTER_CERTIFICATE_NAMES,
  CLUSTER_CERTIFICATES,
  type ClusterCertificateName,
  isClusterCertificate,
  KEPT_CERTIFICATES,
  type KeptCertificateName,
  type SsoCertificateName,
} from '../../certs/cluster-certificate-names.js';
import { checkBundle } from '../../certs/trusted-ca.js';
import { ClusterCertificateError } from '../../errors.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const unknown = (name: string) =>
  new ClusterCertificateError(
    'unknown_certificate',
    `"${name}" is no cluster certificate; the names: ${CLUSTER_CERTIFICATE_NAMES.join(', ')}`,
  );
const named = (name: string): ClusterCertificateName => {
  if (!isClusterCertificate(name)) throw unknown(name);
  return name;
};
const REQUIRED = CLUSTER_CERTIFICATE_NAMES.filter((n) => CLUSTER_CERTIFICATES[n].required);
const OPTIONAL = CLUSTER_CERTIFICATE_NAMES.filter((n) => !CLUSTER_CERTIFICATES[n].required);
const KEPT = KEPT_CERTIFICATES.join(', ');

const Certificate = Type.Object(
  {
    name: Type.String({
      maxLength: 64,
      description: `api: the REST API's own TLS certificate (with its key; every node serves it to new connections); mtls_trusted_ca: the CA(s) client certificates must chain to; sso_service: Tessera's SAML certificate (with its key); sso_issuer: the identity provider's; ${KEPT}: the product's, kept with their keys (checked as api's) and shown, used by nothing here`,
    }),
    certificate: Type.String({ maxLength: 262_144, description: 'PEM' }),
    key: Type.Optional(
      Type.String({ maxLength: 65_536, description: `PEM private key: api, sso_service, ${KEPT}; never answered` }),
    ),
  },
  { additionalProperties: false },
);
/**
 * Room for every one of the product's certificates with its chain and an RSA-4096 key (about
 * 10 KiB each) in one request, as automation that replaces them all sends it; still far below
 * what would cost much to check.
 */
const CERTIFICATES_BODY_LIMIT = 262_144;
/** Every certificate of the product's, with its chain and key, in one request. */
const MAX_CERTIFICATES = 16;

type CertificateBody = { name: string; certificate: string; key?: string };

/**
 * /v1/cluster/certificates (7.22.2+) and /v1/cluster/update_cert (before), as the product: every
 * name of its certificates table (cluster-certificate-names.ts) is taken, every certificate of a
 * request checked before any is set. `api` is served by every node's listener, `mtls_trusted_ca`
 * and the two SSO ones are used as the product uses them; the others (`proxy`, `cm`, …) are kept
 * and shown, used by nothing here. A name that is none of them: 403 `unknown_certificate`. DELETE:
 * a required certificate 403, an optional one 200, a name that is no certificate 404. Rotation
 * regenerates the internal certificates: here, a self-signed `api`. A private key is never answered.
 */
export function clusterCertificatesRoutes(
  app: TesseraApp,
  {
    certificateTrust,
    apiCertificate,
    keptCertificates,
    sso,
    clock,
  }: Pick<HttpServices, 'certificateTrust' | 'apiCertificate' | 'keptCertificates' | 'sso' | 'clock'>,
): void {
  const doc = { tags: ['cluster'], security: CALLER };
  const check = (c: CertificateBody) => {
    const name = named(c.name);
    const kind = CLUSTER_CERTIFICATES[name].tessera;
    if (name === 'api') apiCertificate.check(c.certificate, c.key);
    else if (kind === 'kept') keptCertificates.check(name as KeptCertificateName, c.certificate, c.key);
    else if (kind === 'trust') {
      try {
        checkBundle(c.certificate, new Date(clock()));
      } catch (err) {
        // Among several certificates of one request, the answer says which one is wrong.
        if (err instanceof ClusterCertificateError)
          throw new ClusterCertificateError(err.code as 'invalid_certificate', `${name}: ${err.message}`);
        throw err;
      }
    } else sso.checkCertificate(name as SsoCertificateName, c.certificate, c.key);
  };
  const set = async (c: CertificateBody, request: Parameters<typeof callerOf>[0]) => {
    const [actor, ctx, name] = [callerOf(request), contextOf(request), named(c.name)];
    const kind = CLUSTER_CERTIFICATES[name].tessera;
    if (name === 'api') await apiCertificate.set(actor, c.certificate, c.key, ctx);
    else if (kind === 'kept') await keptCertificates.set(actor, name as KeptCertificateName, c.certificate, c.key, ctx);
    else if (kind === 'trust') await certificateTrust.set(actor, c.certificate, ctx);
    else await sso.setCertificate(actor, name as SsoCertificateName, c.certificate, c.key, ctx);
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
          "The cluster's certificates, each as `<name>_cert` when set: api_cert (the one the REST API serves: the stored one, else this node's own), mtls_trusted_ca_cert, sso_service_cert, sso_issuer_cert, and the product's others Tessera keeps (proxy_cert, cm_cert, …) — never a key (view_cluster_info)",
        response: {
          200: Type.Object(
            Object.fromEntries(CLUSTER_CERTIFICATE_NAMES.map((n) => [`${n}_cert`, Type.Optional(Type.String())])),
            { additionalProperties: false },
          ),
        },
      },
    },
    async () => {
      const [api, pem, kept, ssoCerts] = await Promise.all([
        apiCertificate.pem(),
        certificateTrust.pem(),
        keptCertificates.view(),
        sso.certificatesView(),
      ]);
      return { ...(api && { api_cert: api }), ...(pem && { mtls_trusted_ca_cert: pem }), ...ssoCerts, ...kept };
    },
  );
  app.put(
    '/v1/cluster/certificates',
    {
      config: errors,
      // Chains and keys run far past the 8 KiB of an API body.
      bodyLimit: CERTIFICATES_BODY_LIMIT,
      schema: {
        ...doc,
        summary: `Set cluster certificates: {"certificates": [{"name", "certificate": PEM, "key"?: PEM}]}, any of the product's names (${CLUSTER_CERTIFICATE_NAMES.join(', ')}), all checked before any is set; api is served to new connections at once here, within a second or two on other nodes; ${KEPT} are kept and shown, used by nothing here (update_cluster: admin)`,
        body: Type.Object(
          { certificates: Type.Array(Certificate, { minItems: 1, maxItems: MAX_CERTIFICATES }) },
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
      // A chain and an RSA-4096 key run past the 8 KiB of an API body.
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
      config: { access: 'update_cluster', errors: ['not_found', 'delete_required_certificate_not_allowed'] },
      schema: {
        ...doc,
        summary: `Remove an optional certificate: ${OPTIONAL.join(', ')} (mtls_trusted_ca: no client certificate logs in then, certificate users' tokens end; sso_service, sso_issuer: SSO sign-ins stop, SSO users' tokens end); one not set: 200 all the same. A required one (${REQUIRED.join(', ')}) is 403 delete_required_certificate_not_allowed: replace it instead (update_cluster: admin)`,
        params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
        response: { 200: Ok },
      },
    },
    async (request) => {
      const { name } = request.params;
      if (!isClusterCertificate(name))
        throw new ClusterCertificateError('not_found', `There is no cluster certificate named "${name}"`);
      assertDeletable(name);
      const [actor, ctx, kind] = [callerOf(request), contextOf(request), CLUSTER_CERTIFICATES[name].tessera];
      if (kind === 'trust') await certificateTrust.clear(actor, ctx);
      else if (kind === 'kept') await keptCertificates.clear(actor, name as KeptCertificateName, ctx);
      else await sso.clearCertificate(actor, name as SsoCertificateName, ctx);
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
          'Regenerate the internal certificates. Tessera makes one, the REST API\'s self-signed certificate (`api`): made anew — new key, the same names, valid a year — and served by every node. With no body, an operator\'s api certificate (or a node without TLS) is no internal one: 200, nothing changed (the audit line says so). {"name": "api"} on an operator\'s: 403 rotation_unsupported (PUT a new one instead); any other name, 403 rotation_unsupported: Tessera makes none of them (update_cluster: admin)',
        body: Type.Object(
          {
            name: Type.Optional(
              Type.String({ maxLength: 64, description: 'only this certificate; Tessera rotates api alone' }),
            ),
          },
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
          `Tessera makes one internal certificate, api; ${isClusterCertificate(name) ? `${name} is one it keeps as an operator gives it (PUT /v1/cluster/certificates), never one it makes` : `"${name}" is no cluster certificate`}`,
        );
      await apiCertificate.rotate(callerOf(request), contextOf(request), { named: name !== undefined });
      return {};
    },
  );
}
