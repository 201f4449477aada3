import { isIP } from 'node:net';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Factor } from './factor.js';

/** Who the passkeys are for: the console's origin (the public URL) and its host name, the RP ID. */
export interface RelyingParty {
  /** The host name of the public URL; undefined when it is an address (WebAuthn takes no RP ID that is one). */
  id: string | undefined;
  origin: string;
  name: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { id: isIP(host) ? undefined : host, origin: url.origin, name: 'Tessera' };
}

/** A passkey as registered: what is kept of it. */
export interface NewPasskey {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/**
 * WebAuthn through @simplewebauthn/server: user verification required (a PIN or a biometric:
 * the passkey is a second factor by itself only when it is); attestation not asked (no
 * authenticator model is kept out).
 */
export const passkeys = {
  registrationOptions(
    rp: RelyingParty & { id: string },
    user: { uid: number; username: string },
    existing: readonly Factor[],
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: user.username,
      userID: new TextEncoder().encode(`tessera:${user.uid}`),
      attestationType: 'none',
      excludeCredentials: existing.flatMap((f) =>
        f.credentialId ? [{ id: f.credentialId, ...(f.transports && { transports: f.transports as never }) }] : [],
      ),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
  },

  /** The passkey a registration answer proves, or undefined when it does not verify. */
  async verifyRegistration(
    rp: RelyingParty & { id: string },
    response: RegistrationResponseJSON,
    challenge: string,
  ): Promise<NewPasskey | undefined> {
    try {
      const { verified, registrationInfo } = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
      if (!verified) return undefined;
      const { credential } = registrationInfo;
      return {
        credentialId: credential.id,
        publicKey: b64(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
      };
    } catch {
      return undefined; // a malformed answer is a wrong one
    }
  },

  authenticationOptions(
    rp: RelyingParty & { id: string },
    factors: readonly Factor[],
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: factors.flatMap((f) =>
        f.credentialId ? [{ id: f.credentialId, ...(f.transports && { transports: f.transports as never }) }] : [],
      ),
      userVerification: 'required',
    });
  },

  /** The factor an assertion proves and its new counter, or undefined when it does not verify. */
  async verifyAuthentication(
    rp: RelyingParty & { id: string },
    response: AuthenticationResponseJSON,
    challenge: string,
    factors: readonly Factor[],
  ): Promise<{ factor: Factor; counter: number } | undefined> {
    const factor = factors.find((f) => f.credentialId !== null && f.credentialId === response?.id);
    if (!factor?.publicKey || !factor.credentialId) return undefined;
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: factor.credentialId,
          publicKey: Buffer.from(factor.publicKey, 'base64url'),
          counter: factor.counter,
          ...(factor.transports && { transports: factor.transports as never }),
        },
        requireUserVerification: true,
      });
      return verified ? { factor, counter: authenticationInfo.newCounter } : undefined;
    } catch {
      return undefined;
    }
  },
};
