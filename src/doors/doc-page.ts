import { Marked, type Tokens } from 'marked';

/**
 * The shipped docs (docs/*.md) as pages a person reads in a browser, with the inbox's look in light and dark. The
 * markdown is askgate's own (never a user's), rendered with marked; the page runs no script. Headings get GitHub's
 * anchor ids so the docs' `#section` links land, and wide tables scroll inside the page at phone width.
 */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
function slugger(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = text
      .toLowerCase()
      .replace(/<[^>]*>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  };
}

function renderMarkdown(markdown: string): string {
  const slug = slugger();
  const marked = new Marked({ gfm: true, async: false });
  marked.use({
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Heading['tokens']): string } }, token: Tokens.Heading) {
        const inner = this.parser.parseInline(token.tokens);
        return `<h${token.depth} id="${escapeHtml(slug(token.text))}">${inner}</h${token.depth}>\n`;
      },
    },
  });
  // Wrapped so a wide table scrolls inside the page instead of widening it (docs never nest tables).
  return (marked.parse(markdown) as string)
    .replaceAll('<table>', '<div class="doc-table"><table>')
    .replaceAll('</table>', '</table></div>');
}

/** One doc as a page: the title from its first heading, a way back to `/`, the rendered text. */
export function docPage(name: string, markdown: string, version: string): string {
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? name;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title.replace(/`/g, ''))} — askgate</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/web/forms.css">
<link rel="stylesheet" href="/assets/web/inbox.css">
</head>
<body>
<header class="topbar">
<h1><a href="/">askgate ${escapeHtml(version)}</a></h1><span class="doc-name">docs/${escapeHtml(name)}</span>
</header>
<main class="doc">
${renderMarkdown(markdown)}
</main>
</body>
</html>
`;
}
