import type { ReactNode } from 'react';

/**
 * A small, safe Markdown preview for issue bodies: headings, paragraphs, lists, fenced code, block quotes, inline
 * code, bold and links (http/https only). It builds React elements from text; no HTML from the input is ever
 * interpreted, so a pasted `<script>` shows as text. It is a preview, not a full CommonMark implementation.
 */
export function MarkdownView({ source, label }: { source: string; label: string }) {
  return (
    <div className="markdown" aria-label={label} role="document">
      {renderBlocks(source)}
    </div>
  );
}

function renderBlocks(source: string): ReactNode[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: ReactNode[] = [];
  let i = 0;
  let key = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (/^\s*<details>/i.test(line)) {
      // GitHub renders <details>/<summary>; we rebuild just those two as elements (their content stays Markdown
      // text), and nothing else that looks like HTML is ever interpreted.
      const collected: string[] = [];
      let depth = 0;
      while (i < lines.length) {
        const l = lines[i++] ?? '';
        depth += (l.match(/<details>/gi) ?? []).length - (l.match(/<\/details>/gi) ?? []).length;
        collected.push(l);
        if (depth <= 0) break;
      }
      const joined = collected
        .join('\n')
        .replace(/^\s*<details>/i, '')
        .replace(/<\/details>\s*$/i, '');
      const summary = /^\s*<summary>([\s\S]*?)<\/summary>/i.exec(joined);
      const body = summary ? joined.slice(summary[0].length) : joined;
      out.push(
        <details key={key++}>
          <summary>{inline(summary?.[1]?.trim() || 'Details')}</summary>
          {renderBlocks(body)}
        </details>,
      );
      continue;
    }
    const fence = /^(```|~~~)(.*)$/.exec(line.trim());
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(fence[1] ?? '```')) body.push(lines[i++] ?? '');
      i++; // closing fence (or end of input)
      out.push(
        <pre key={key++}>
          <code>{body.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, (heading[1] ?? '#').length + 2); // page headings above; keep the outline valid
      const H = `h${level}` as 'h3';
      out.push(<H key={key++}>{inline(heading[2] ?? '')}</H>);
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d+[.)]\s+/.test(line);
      const items: string[] = [];
      while (i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i] ?? '')) items.push((lines[i++] ?? '').replace(/^\s*([-*+]|\d+[.)])\s+/, ''));
      const L = ordered ? 'ol' : 'ul';
      out.push(
        <L key={key++}>
          {items.map((it, n) => (
            <li key={n}>{inline(it.replace(/^\[( |x)\]\s+/i, (m) => (m.toLowerCase().includes('x') ? '☑ ' : '☐ ')))}</li>
          ))}
        </L>,
      );
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^>\s?/.test(lines[i] ?? '')) quoted.push((lines[i++] ?? '').replace(/^>\s?/, ''));
      out.push(<blockquote key={key++}>{renderBlocks(quoted.join('\n'))}</blockquote>);
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    if (/^(<!--.*-->)\s*$/.test(line.trim())) {
      i++; // an HTML comment is invisible on GitHub too
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && (lines[i] ?? '').trim() !== '' && !/^(#{1,6}\s|```|~~~|>\s?|\s*([-*+]|\d+[.)])\s+)/.test(lines[i] ?? ''))
      para.push(lines[i++] ?? '');
    out.push(<p key={key++}>{inline(para.join(' '))}</p>);
  }
  return out;
}

/** Inline code, bold and links; everything else stays literal text. */
export function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  const pattern = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\[[^\]]+\]\((https?:\/\/[^\s)]+)\))|(https?:\/\/[^\s<>)]+)/g;
  let last = 0;
  let key = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1]) out.push(<code key={key++}>{m[1].slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong key={key++}>{m[2].slice(2, -2)}</strong>);
    else if (m[3] && m[4]) {
      const label = m[3].slice(1, m[3].indexOf(']('));
      out.push(
        <a key={key++} href={m[4]} target="_blank" rel="noopener noreferrer">
          {label}
        </a>,
      );
    } else if (m[5])
      out.push(
        <a key={key++} href={m[5]} target="_blank" rel="noopener noreferrer">
          {m[5]}
        </a>,
      );
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
