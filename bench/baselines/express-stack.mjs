// "What a user would write instead": Express 5 + the argon2 package + jsonwebtoken, over
// the same SQLite file and the same argon2id hashes (the PHC format is shared).
import path from 'node:path';
import argon2 from 'argon2';
import SQLite from 'better-sqlite3';
import express from 'express';
import jwt from 'jsonwebtoken';

const db = new SQLite(path.join(process.argv[2], 'tessera.db'), { readonly: true });
const find = db.prepare(
  'select u.uid, u.username, u.role, p.hash from users u join user_passwords p on p.uid = u.uid where u.username_key = ?',
);
const secret = 'a-long-random-secret-for-hs256-signing-0123456789';
const app = express();
app.use(express.json());
app.post('/v1/users/authorize', async (req, res) => {
  const { username, password } = req.body ?? {};
  const row = typeof username === 'string' ? find.get(username.toLowerCase()) : undefined;
  if (!row || !(await argon2.verify(row.hash, password))) {
    return res.status(401).json({ error_code: 'invalid_credentials', message: 'Invalid username or password' });
  }
  const token = jwt.sign({ uid: row.uid, username: row.username, roles: [row.role] }, secret, {
    expiresIn: 300,
    subject: String(row.uid),
  });
  res.json({ access_token: token });
});
const server = app.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
