'use client';

import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, foldGutter, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { tags } from '@lezer/highlight';
import { EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import type { Mark } from './diagnostics.ts';

const theme = EditorView.theme({
  '&': { fontSize: '12.5px', height: '100%', backgroundColor: 'transparent', color: 'inherit' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', lineHeight: '1.5' },
  '.cm-gutters': { backgroundColor: 'transparent', color: 'var(--cm-comment)', borderRight: '1px solid rgb(148 163 184 / 0.4)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'rgb(148 163 184 / 0.12)' },
  '&.cm-focused': { outline: '2px solid rgb(14 165 233)' },
  '.cm-cursor': { borderLeftColor: 'currentColor' },
});

/** Colours from CSS variables (app/globals.css), so that both themes keep their contrast. */
const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: 'var(--cm-key)' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--cm-string)' },
  { tag: [tags.number, tags.integer, tags.float], color: 'var(--cm-number)' },
  { tag: [tags.bool, tags.null, tags.atom, tags.keyword], color: 'var(--cm-atom)' },
  { tag: [tags.comment, tags.lineComment], color: 'var(--cm-comment)', fontStyle: 'italic' },
  { tag: [tags.meta, tags.labelName, tags.typeName, tags.invalid], color: 'var(--cm-meta)' },
]);

/**
 * The definition's YAML in CodeMirror: syntax highlighting, folding, history, and the validation
 * errors marked at their lines as you type (`marks` from diagnostics.ts). Tab indents; Escape then
 * Tab leaves the editor (CodeMirror's own rule), so the keyboard is never trapped.
 */
export function YamlEditor({ value, onChange, marks, label }: { value: string; onChange(text: string): void; marks: readonly Mark[]; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          foldGutter(),
          history(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          syntaxHighlighting(highlight),
          yaml(),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
          theme,
        ],
      }),
    });
    // The scroller is a scrollable region: reachable by keyboard like every other one on the page.
    v.scrollDOM.tabIndex = 0;
    v.scrollDOM.setAttribute('aria-label', `${label}, scrollable`);
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor is made once; later values arrive through the effect below.
  }, []);

  // A value set from outside (a template, the form) replaces the text; the user's own typing does not come back here.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const len = v.state.doc.length;
    const diagnostics: Diagnostic[] = marks.map((m) => ({ from: Math.min(m.from, len), to: Math.min(Math.max(m.to, m.from), len), severity: m.severity, message: m.message }));
    v.dispatch(setDiagnostics(v.state, diagnostics));
  }, [marks]);

  return <div ref={host} className="h-full min-h-[420px] overflow-hidden rounded border border-slate-300 dark:border-slate-700" data-testid="studio-editor" />;
}
