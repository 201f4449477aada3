import Type from 'typebox';
import { passwordRulesInWords } from '../../users/password-rules.js';
import { ANYONE } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/**
 * GET /v1/password-rules: what a new password must be, for anyone choosing one — also a
 * person whose password expired, who has no token yet. The rules, not the policy's lockout.
 */
export function passwordRulesRoute(app: TesseraApp, { policy }: Pick<HttpServices, 'policy'>): void {
  const schema = {
    tags: ['users'],
    summary: 'What a new password must be, in words (anyone)',
    security: ANYONE,
    response: {
      200: Type.Object({ min_length: Type.Integer(), complexity: Type.Boolean(), rules: Type.Array(Type.String()) }),
    },
  };
  app.get('/v1/password-rules', { config: { access: 'public', errors: ['store_unavailable'] }, schema }, async () => {
    const rules = await policy.get();
    return {
      min_length: rules.password_min_length,
      complexity: rules.password_complexity,
      rules: passwordRulesInWords(rules),
    };
  });
}
