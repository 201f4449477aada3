import Type from 'typebox';
import { checkBundle } from '../../certs/trusted-ca.js';
import { ClusterCertificateError } from '../../errors.js';
import { SSO_CERTIFICATES, type SsoCertificateName } from '../../sso/sso-certificates.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** The cluster certificates Tessera keeps; its own TLS certificate comes from --tls-cert. */
const KEPT = ['mtls_trusted_ca', ...SSO_CERTIFICATES] as const;
type Kept = (typeof KEPT)[number];
const isKept = (name: string): name is Kept => (KEPT as readonly string[]).includes(name);
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
        "mtls_trusted_ca: the CA(s) client certificates must chain to; sso_service: Tessera's SAML certificate (with its key); sso_issuer: the identity provider's",
    }),
    certificate: Type.String({ maxLength: 262_144, description: 'PEM' }),
    key: Type.Optional(Type.String({ maxLength: 65_536, description: 'PEM private key: sso_service only' })),
  },
  { additionalProperties: false },
);
type CertificateBody = { name: string; certificate: string; key?: string };

/**
 * /v1/cluster/certificates (7.22.2+) and /v1/cluster/update_cert (before): the trusted CA for
 * client certificates and the two SSO certificates, as the product sets them (every one
 * checked before any is set). Other names are the product's own servers' (api, cm, proxy,
 * …): 403 `unknown_certificate`. A private key is never answered.
 */
export function clusterCertificatesRoutes(
  app: TesseraApp,
  { certificateTrust, sso, clock }: Pick<HttpServices, 'certificateTrust' | 'sso' | 'clock'>,
): void {
  const doc = { tags: ['cluster'], security: CALLER };
  const check = (c: CertificateBody) => {
    if (!isKept(c.name)) throw unknown(c.name);
    if (c.name === 'mtls_trusted_ca') checkBundle(c.certificate, new Date(clock()));
    else sso.checkCertificate(c.name, c.certificate, c.key);
  };
  const set = async (c: CertificateBody, request: Parameters<typeof callerOf>[0]) => {
    if (c.name === 'mtls_trusted_ca') await certificateTrust.set(callerOf(request), c.certificate, contextOf(request));
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
          "The cluster's certificates that Tessera keeps, each when set: mtls_trusted_ca_cert, sso_service_cert, sso_issuer_cert — never a key (view_cluster_info)",
        response: {
          200: Type.Object({
            mtls_trusted_ca_cert: Type.Optional(Type.String()),
            sso_service_cert: Type.Optional(Type.String()),
            sso_issuer_cert: Type.Optional(Type.String()),
          }),
        },
      },
    },
    async () => {
      const pem = await certificateTrust.pem();
      return { ...(pem && { mtls_trusted_ca_cert: pem }), ...(await sso.certificatesView()) };
    },
  );
  app.put(
    '/v1/cluster/certificates',
    {
      config: errors,
      schema: {
        ...doc,
        summary:
          'Set cluster certificates: {"certificates": [{"name": "mtls_trusted_ca" | "sso_service" | "sso_issuer", "certificate": PEM, "key"?: PEM}]}, all checked before any is set (update_cluster: admin)',
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
      config: { access: 'update_cluster', errors: ['unknown_certificate'] },
      schema: {
        ...doc,
        summary:
          "Remove a certificate: mtls_trusted_ca (no client certificate logs in then, certificate users' tokens end), sso_service or sso_issuer (SSO sign-ins stop; SSO users' tokens end) (update_cluster: admin)",
        params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
        response: { 200: Ok },
      },
    },
    async (request) => {
      const { name } = request.params;
      if (!isKept(name)) throw unknown(name);
      if (name === 'mtls_trusted_ca') await certificateTrust.clear(callerOf(request), contextOf(request));
      else await sso.clearCertificate(callerOf(request), name, contextOf(request));
      return {};
    },
  );
}
