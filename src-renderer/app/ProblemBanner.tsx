// A refusal or failure as staff read it: what to do, announced (role="alert"), with the engine's
// own text folded away as the technical detail support asks for.
import type { Problem } from '../api/problems';
import { useT } from './session';

export function ProblemBanner({ problem, testid, tone = 'error' }: { problem: Problem | undefined; testid?: string; tone?: 'error' | 'warn' }) {
  const t = useT();
  if (!problem) return null;
  return (
    <div className={`banner banner-${tone}`} role="alert" data-testid={testid}>
      <span data-testid={testid ? `${testid}-mensaje` : undefined}>{problem.mensaje}</span>
      {problem.detalle ? (
        <details className="problem-detail">
          <summary>{t('error.detalle')}</summary>
          <code className="mono small">{problem.detalle}</code>
        </details>
      ) : null}
    </div>
  );
}
