import { type ComponentChildren, Fragment } from 'preact';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, explain } from './api.js';
import { when } from './dates.js';
import type { ClusterRole } from './roles.js';
import type { CertificateSummary } from './x509.js';

/** A labelled input: the label is what a person, a screen reader and a test all call it. */
export function Field(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  hint?: string;
  min?: number;
  max?: number;
  /** The keyboard a phone shows: "numeric" for a one-time code. */
  inputMode?: 'numeric' | 'text';
  maxLength?: number;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        type={props.type ?? 'text'}
        value={props.value}
        autoComplete={props.autoComplete}
        required={props.required}
        min={props.min}
        max={props.max}
        inputMode={props.inputMode}
        maxLength={props.maxLength}
        spellcheck={props.inputMode ? false : undefined}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** Long text with places to wrap (after an @, a comma, an underscore), so that a narrow window needs no sideways scroll. */
export function breakable(text: string, at: RegExp) {
  // Each part a span of its own, its <wbr> before it: a part is never broken inside.
  return text.split(at).map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      <span>{part}</span>
    </Fragment>
  ));
}

/** A name or email this long at most is never wrapped: the column holds it whole (most addresses are shorter). */
const WHOLE_UP_TO = 24;

/**
 * A user's name or email as a table shows it (in a cell of class "name"): whole on one line when
 * short (`wholeUpTo` characters; 0 in a table of many columns); a longer one wraps only after
 * its @ and before a dot of its domain, where a reader expects a break, never inside a word nor
 * at a hyphen.
 */
export const userText = (text: string, wholeUpTo = WHOLE_UP_TO) =>
  text.length <= wholeUpTo ? <span>{text}</span> : breakable(text, /(?<=@)|(?<=@[^@]*)(?=\.)/);

/**
 * A time as `when` writes it (the same text), marked up as a <time>: in a narrow column it wraps
 * between its date and its time only ("27 Nov 2026," / "18:40:12 GMT+1").
 */
export function When(props: { at: string | number | Date }) {
  const text = when(props.at);
  const date = new Date(props.at);
  const cut = text.indexOf(', ');
  if (cut < 0 || Number.isNaN(date.getTime())) return <>{text}</>;
  return (
    <time dateTime={date.toISOString()}>
      <span>{text.slice(0, cut + 1)}</span> <span>{text.slice(cut + 2)}</span>
    </time>
  );
}

/** What a certificate is, as the Certificates and SSO pages show it: subject, issuer, validity, SHA-256. */
export function CertificateFacts(props: { summary: CertificateSummary; label: string; selfIssued?: string }) {
  const s = props.summary;
  return (
    <dl aria-label={props.label}>
      <dt>Subject</dt>
      <dd>{s.subject}</dd>
      <dt>Issuer</dt>
      <dd>{s.issuer === s.subject ? (props.selfIssued ?? 'itself (self-signed)') : s.issuer}</dd>
      <dt>Valid</dt>
      <dd>
        from <When at={s.notBefore} /> until <When at={s.notAfter} />
        {s.notAfter.getTime() < Date.now() && <strong> — expired</strong>}
        {s.notBefore.getTime() > Date.now() && <strong> — not yet valid</strong>}
      </dd>
      {s.sha256 && (
        <>
          <dt>SHA-256</dt>
          <dd>{s.sha256}</dd>
        </>
      )}
    </dl>
  );
}

/** A refusal or failure, next to what caused it, read out by screen readers. */
export function Problem(props: { children?: ComponentChildren; title?: string }) {
  if (!props.children) return null;
  return (
    <div class="problem" role="alert">
      {props.title && <strong>{props.title}: </strong>}
      {props.children}
    </div>
  );
}

export function Done(props: { children?: ComponentChildren }) {
  if (!props.children) return null;
  return (
    <p class="done" role="status">
      {props.children}
    </p>
  );
}

/** What a new password must be, as the server's policy says now. */
export function PasswordRules(props: { id?: string }) {
  const [rules, setRules] = useState<string[]>([]);
  useEffect(() => {
    api<{ rules: string[] }>('GET', '/v1/password-rules').then(
      (r) => setRules(r.rules),
      () => setRules([]),
    );
  }, []);
  if (rules.length === 0) return null;
  return (
    <div class="rules" id={props.id}>
      <p>A new password needs:</p>
      <ul>
        {rules.map((rule) => (
          <li key={rule}>{rule}</li>
        ))}
      </ul>
    </div>
  );
}

/** The cluster's roles as checkboxes: a user holds the rights of every role ticked. */
export function RoleChoice(props: {
  legend: string;
  roles: ClusterRole[];
  value: number[];
  onChange: (uids: number[]) => void;
}) {
  return (
    <fieldset class="roles">
      <legend>{props.legend}</legend>
      {props.roles.map((r) => (
        <label key={r.uid} class="check">
          <input
            type="checkbox"
            checked={props.value.includes(r.uid)}
            onChange={(e) =>
              props.onChange(
                (e.target as HTMLInputElement).checked
                  ? [...props.value, r.uid].sort((a, b) => a - b)
                  : props.value.filter((x) => x !== r.uid),
              )
            }
          />{' '}
          {r.name} ({r.management})
        </label>
      ))}
    </fieldset>
  );
}

/** A checkbox (or a radio button) with its label after it. */
export function Check(props: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  radio?: boolean;
  name?: string;
}) {
  return (
    <div class="field check">
      <input
        id={props.id}
        type={props.radio ? 'radio' : 'checkbox'}
        name={props.name}
        checked={props.checked}
        onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)}
      />
      <label for={props.id}>{props.label}</label>
    </div>
  );
}

/**
 * A page's actions: each clears the last outcome, runs, reloads the page's data and says it is
 * done, or shows the refusal in the server's words (and answers whether it went through).
 */
export function useActions(reload: () => Promise<unknown>) {
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  const act = async (what: () => Promise<unknown>, success: string): Promise<boolean> => {
    setProblem('');
    setDone('');
    try {
      await what();
      // Said once the page shows the outcome: what a person (or a test) reads next is already there.
      await reload();
      setDone(success);
      return true;
    } catch (err) {
      setProblem(explain(err));
      return false;
    }
  };
  return { problem, setProblem, done, setDone, act };
}

/** Where focus goes back to when a dialog closes: the control that opened it, or one that stands for it. */
export type FocusTarget = () => HTMLElement | null | undefined;

/**
 * A modal dialog: the browser's own <dialog> opened with showModal (the page behind is inert,
 * Escape closes it). Focus moves into it — to the element marked data-autofocus, else the
 * first control — and back to `returnFocus` (default: what had it) when it closes.
 */
export function Dialog(props: {
  title: string;
  onClose: () => void;
  returnFocus?: FocusTarget;
  wide?: boolean;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  const returnFocus = useRef(props.returnFocus);
  returnFocus.current = props.returnFocus;
  // Opened before the browser paints: a key pressed at once already reaches the dialog.
  useLayoutEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    const closed = () => onClose.current();
    dialog.addEventListener('close', closed);
    dialog.showModal();
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      dialog.removeEventListener('close', closed);
      if (dialog.open) dialog.close();
      const back = returnFocus.current?.() ?? opener;
      if (back?.isConnected) back.focus();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} class={props.wide ? 'wide' : undefined}>
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/**
 * "Are you sure?", saying what happens: a dialog whose safe answer (Cancel, Escape) has the
 * focus, and whose other answer runs `onConfirm` and closes it.
 */
export function Confirm(props: {
  title: string;
  confirm: string;
  cancel?: string;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
  returnFocus?: FocusTarget;
  children: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <Dialog title={props.title} onClose={props.onClose} returnFocus={props.returnFocus}>
      <div class="consequence">{props.children}</div>
      <div class="buttons">
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            void props.onConfirm().finally(props.onClose);
          }}
        >
          {props.confirm}
        </button>
        <button type="button" data-autofocus onClick={props.onClose}>
          {props.cancel ?? 'Cancel'}
        </button>
      </div>
    </Dialog>
  );
}

export interface MenuItem {
  label: string;
  onSelect: () => void;
}

/**
 * A menu button (WAI-ARIA APG): Enter, Space or ArrowDown open it on its first item, ArrowUp on
 * its last; the arrows, Home and End move; Escape closes it back to the button; Tab or a click
 * elsewhere closes it.
 */
export function ActionMenu(props: {
  label: string;
  items: MenuItem[];
  buttonRef?: (button: HTMLButtonElement | null) => void;
}) {
  const [open, setOpen] = useState<false | 'first' | 'last'>(false);
  const menuId = useId();
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement | null>(null);
  const items = () => [...(wrap.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  // Before the browser paints: the focus is in the menu as soon as it shows (an effect may wait a frame).
  useLayoutEffect(() => {
    if (!open) return;
    const all = items();
    (open === 'last' ? all[all.length - 1] : all[0])?.focus();
    const outside = (e: PointerEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  const onMenuKey = (e: KeyboardEvent) => {
    const all = items();
    const at = all.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => all[(i + all.length) % all.length]?.focus();
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(all.length - 1);
    else if (e.key === 'Escape') close(true);
    else if (e.key === 'Tab') return setOpen(false);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <div class="menu" ref={wrap}>
      <button
        type="button"
        ref={(el) => {
          button.current = el;
          props.buttonRef?.(el);
        }}
        aria-label={props.label}
        aria-haspopup="menu"
        aria-expanded={open ? 'true' : 'false'}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen(open ? false : 'first')}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            setOpen(e.key === 'ArrowUp' ? 'last' : 'first');
          } else if (e.key === 'Escape' && open) {
            // Open, but the focus not in it yet (or back on the button): Escape closes it all the same.
            e.preventDefault();
            close(true);
          }
        }}
      >
        Actions <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div role="menu" id={menuId} aria-label={props.label} tabIndex={-1} onKeyDown={onMenuKey}>
          {props.items.map((item) => (
            <button
              key={item.label}
              type="button"
              role="menuitem"
              tabIndex={-1}
              onClick={() => {
                close(true);
                item.onSelect();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/**
 * A secret shown this once (a password, an API key): focused when it appears (its label and value
 * are read out), with a copy button; where the clipboard is refused, the secret is selected to copy by hand.
 */
export function OneTimeSecret(props: { intro: ComponentChildren; password: string; label?: string; copy?: string }) {
  const [copied, setCopied] = useState<boolean>();
  const output = useRef<HTMLOutputElement>(null);
  const selectAll = () => {
    const el = output.current;
    if (!el) return;
    el.focus();
    const range = document.createRange();
    range.selectNodeContents(el);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
  };
  return (
    <div class="secret">
      <p>{props.intro}</p>
      <output ref={output} aria-label={props.label ?? 'Generated password'} tabIndex={-1} data-autofocus>
        {props.password}
      </output>{' '}
      <button
        type="button"
        onClick={() =>
          Promise.resolve()
            .then(() => navigator.clipboard.writeText(props.password))
            .then(
              () => setCopied(true),
              () => {
                setCopied(false);
                selectAll();
              },
            )
        }
      >
        {props.copy ?? 'Copy password'}
      </button>
      <span role="status">
        {copied === true ? ' Copied.' : copied === false ? ' Selected: copy it by hand (Ctrl+C or ⌘C).' : ''}
      </span>
    </div>
  );
}
