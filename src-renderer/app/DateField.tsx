// A date typed as dd/mm/aaaa in the staff's language: the invoices' filters and the «NO VERI*FACTU»
// periods (the browser's date picker would follow the computer's locale, not the till's language).
import { useEffect, useState } from 'react';
import { fechaParaTeclear, parseFechaTecleada } from '../i18n/format';
import { useT } from './session';

/** A date typed as dd/mm/aaaa (our own field, not the browser's date picker and its locale). */
export function DateField({ label, value, testid, onChange }: { label: string; value: string; testid: string; onChange: (iso: string) => void }) {
  const t = useT();
  const [text, setText] = useState(fechaParaTeclear(value));
  const [invalid, setInvalid] = useState(false);
  useEffect(() => setText(fechaParaTeclear(value)), [value]);
  const commit = () => {
    const iso = parseFechaTecleada(text);
    setInvalid(iso === null);
    if (iso !== null && iso !== value) onChange(iso);
  };
  const errorId = `${testid}-error`;
  return (
    <label>
      {label}
      <input
        data-testid={testid}
        value={text}
        placeholder={t('facturas.fechaFormato')}
        inputMode="numeric"
        maxLength={10}
        size={10}
        aria-invalid={invalid}
        aria-describedby={invalid ? errorId : undefined}
        className={invalid ? 'invalid' : ''}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit();
          }
        }}
      />
      {invalid ? (
        <span id={errorId} className="field-error" role="alert" data-testid={errorId}>
          {t('facturas.fechaNoValida')}
        </span>
      ) : null}
    </label>
  );
}
