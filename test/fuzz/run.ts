// Long form of the fuzzing campaign (issue 15): `npm run test:fuzz -- --runs 100000 [--seed N]`.
// The same property as test/fuzz/every-route.test.ts; prints the counts (requests, by status,
// 5xx, crashes) as JSON and exits 1 on the first violation, with the request that caused it.
import { parseArgs } from 'node:util';
import { fuzzTarget, runCampaign } from './campaign';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '100000' }, seed: { type: 'string' } }, strict: true });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive whole number');
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);

const target = await fuzzTarget();
const started = Date.now();
let code = 0;
try {
  // Progress on stderr, so a run cut short still tells how far it got.
  const stats = await runCampaign(target, runs, seed, (s) => process.stderr.write(`${JSON.stringify({ seed, requests: s.requests, fiveXx: s.fiveXx, crashes: s.crashes, byStatus: s.byStatus })}\n`));
  process.stdout.write(`${JSON.stringify({ seed, seconds: (Date.now() - started) / 1000, ...stats, violations: stats.violations.length }, null, 2)}\n`);
} catch (e) {
  const cause = e instanceof Error && e.cause instanceof Error ? `\n${e.cause.message}` : '';
  process.stderr.write(`seed ${seed}: ${e instanceof Error ? e.message : String(e)}${cause}\n`);
  code = 1;
} finally {
  await target.close();
}
process.exit(code);
