import Type from 'typebox';
import type { TesseraApp } from '../tessera-app.js';
import { ANYONE, ERROR_RESPONSES } from '../schemas.js';
import { passwordRulesInWords } from '../../users/password-rules.js';

/**
 * GET /v1/password-rules: what a new password must be, for anyone choosing one — also a
 * person whose password expired, who has no token yet. The rules, not the policy's lockout.
 */
export function passwordRulesRoute(app: TesseraApp): void {
  const schema = {
    tags: ['users'],
    summary: 'What a new password must be, in words (anyone)',
    security: ANYONE,
    response: {
      200: Type.Object({ min_length: Type.Integer(), complexity: Type.Boolean(), rules: Type.Array(Type.String()) }),
      ...ERROR_RESPONSES,
    },
  };
  app.get('/v1/password-rules', { schema }, async () => {
    const policy = await app.tessera.policy.get();
    return { min_length: policy.password_min_length, complexity: policy.password_complexity, rules: passwordRulesInWords(policy) };
  });
}
