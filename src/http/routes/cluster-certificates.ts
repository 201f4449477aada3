import Type from 'typebox';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';
import { ClusterCertificateError } from '../../errors.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok } from '../schemas.js';

/** The one cluster certificate Tessera keeps; its own TLS certificate comes from --tls-cert. */
const TRUSTED_CA = 'mtls_trusted_ca';

const Certificate = Type.Object(
  {
    name: Type.String({ maxLength: 64, description: 'mtls_trusted_ca: the CA(s) that client certificates must chain to' }),
    certificate: Type.String({ maxLength: 262_144, description: 'PEM' }),
    key: Type.Optional(Type.String({ maxLength: 65_536, description: 'not taken: a CA bundle has no key here' })),
  },
  { additionalProperties: false },
);

/**
 * /v1/cluster/certificates (7.22.2+) and /v1/cluster/update_cert (before): the trusted CA
 * for client certificates, as the product sets it. Other certificate names are the product's
 * own servers' (api, cm, proxy, …): 403 `unknown_certificate`.
 */
export function clusterCertificatesRoutes(app: TesseraApp, { certificateTrust }: Pick<HttpServices, 'certificateTrust'>): void {
  const doc = { tags: ['cluster'], security: CALLER };
  const set = async (name: string, pem: string, request: Parameters<typeof callerOf>[0]) => {
    if (name !== TRUSTED_CA) throw new ClusterCertificateError('unknown_certificate', `Tessera keeps one cluster certificate, ${TRUSTED_CA}; "${name}" is not one of its own`);
    await certificateTrust.set(callerOf(request), pem, contextOf(request));
  };
  const errors = { access: 'update_cluster' as const, errors: ['unknown_certificate' as const, 'invalid_certificate' as const, 'expired_certificate' as const] };
  app.get(
    '/v1/cluster/certificates',
    {
      config: { access: 'view_cluster_info' },
      schema: {
        ...doc,
        summary: 'The cluster\'s certificates that Tessera keeps: mtls_trusted_ca_cert when set (view_cluster_info)',
        response: { 200: Type.Object({ mtls_trusted_ca_cert: Type.Optional(Type.String()) }) },
      },
    },
    async () => {
      const pem = await certificateTrust.pem();
      return pem ? { mtls_trusted_ca_cert: pem } : {};
    },
  );
  app.put(
    '/v1/cluster/certificates',
    {
      config: errors,
      schema: {
        ...doc,
        summary: 'Set the trusted CA for client certificates: {"certificates": [{"name": "mtls_trusted_ca", "certificate": PEM}]} (update_cluster: admin)',
        body: Type.Object({ certificates: Type.Array(Certificate, { minItems: 1, maxItems: 16 }) }, { additionalProperties: false }),
        response: { 200: Ok },
      },
    },
    async (request) => {
      // Every one checked before any is set, as the product does.
      const unknown = request.body.certificates.find((c) => c.name !== TRUSTED_CA);
      if (unknown) throw new ClusterCertificateError('unknown_certificate', `Tessera keeps one cluster certificate, ${TRUSTED_CA}; "${unknown.name}" is not one of its own`);
      for (const c of request.body.certificates) await set(c.name, c.certificate, request);
      return {};
    },
  );
  app.put(
    '/v1/cluster/update_cert',
    {
      config: errors,
      schema: { ...doc, summary: 'As PUT /v1/cluster/certificates, one certificate (the product\'s path before 7.22.2)', body: Certificate, response: { 200: Ok } },
    },
    async (request) => {
      await set(request.body.name, request.body.certificate, request);
      return {};
    },
  );
  app.delete(
    '/v1/cluster/certificates/:name',
    {
      config: { access: 'update_cluster', errors: ['unknown_certificate'] },
      schema: { ...doc, summary: 'Remove the trusted CA: no client certificate logs in then, and certificate users\' tokens end (update_cluster: admin)', params: Type.Object({ name: Type.String({ maxLength: 64 }) }), response: { 200: Ok } },
    },
    async (request) => {
      if (request.params.name !== TRUSTED_CA) throw new ClusterCertificateError('unknown_certificate', `Tessera keeps one cluster certificate, ${TRUSTED_CA}`);
      await certificateTrust.clear(callerOf(request), contextOf(request));
      return {};
    },
  );
}
