import { SSP_PACKAGES, simpleSamlPhpMissing } from './simplesamlphp.mjs';

// The identity provider itself is plain JavaScript (simplesamlphp.mjs), which `npm run try:sso` starts too.
export {
  type IdpUser,
  SSP_PACKAGES,
  selfSigned,
  simpleSamlPhpMissing,
  startIdp,
  type TestIdp,
} from './simplesamlphp.mjs';

/** Whether a real SAML identity provider can run here; in CI its absence fails the tests that need it. */
export function simpleSamlPhpHere(): boolean {
  const missing = simpleSamlPhpMissing();
  const here = missing.length === 0;
  if (!here && process.env.CI === 'true')
    throw new Error(
      `SimpleSAMLphp is missing (${missing.join(', ')}): apt-get install -y ${SSP_PACKAGES.join(' ')} (.ci/run does)`,
    );
  if (!here)
    console.warn(
      `SKIPPED: the SAML tests need SimpleSAMLphp (missing ${missing.join(', ')}: apt-get install -y ${SSP_PACKAGES.join(' ')})`,
    );
  return here;
}
