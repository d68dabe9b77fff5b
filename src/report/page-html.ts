/**
 * The frame of the HTML pages (`graph --format html`, `plan --html`, `test --html`): one self-contained file —
 * styles inline, pictures as inline SVG, no script, nothing fetched (a Content-Security-Policy forbids it), so a
 * CI artifact opens the same anywhere.
 */

/** `text` safe inside HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A value as readable JSON inside `<pre>`. */
export function jsonBlock(value: unknown): string {
  return `<pre class="json">${escapeHtml(value === undefined ? '(none)' : JSON.stringify(value, null, 2))}</pre>`;
}

const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #111827; }
body { margin: 0 auto; padding: 24px 32px 64px; max-width: 1400px; line-height: 1.45; }
h1 { font-size: 1.6rem; margin: 0 0 4px; } h2 { font-size: 1.25rem; margin: 32px 0 8px; border-bottom: 1px solid #e5e7eb; padding-bottom: 4px; }
h3 { font-size: 1.05rem; margin: 20px 0 6px; }
.meta { color: #4b5563; font-size: .9rem; } .meta code { font-size: .85rem; }
.summary { font-size: 1.1rem; font-weight: 600; margin: 12px 0; }
.ok { color: #15803d; } .bad { color: #b91c1c; } .warn { color: #b45309; } .dim { color: #6b7280; }
.box { border: 1px solid #e5e7eb; border-radius: 8px; padding: 10px 14px; margin: 8px 0; background: #fff; }
.box.refusal, .box.failed, .box.error { border-color: #fca5a5; background: #fef2f2; }
.box.warning { border-color: #fcd34d; background: #fffbeb; }
.mark { display: inline-block; width: 1.4em; font-weight: 700; font-family: ui-monospace, monospace; }
.mark.add { color: #15803d; } .mark.change { color: #b45309; } .mark.retire { color: #b91c1c; }
table { border-collapse: collapse; margin: 6px 0; font-size: .9rem; } th, td { border: 1px solid #e5e7eb; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f9fafb; }
pre { margin: 4px 0; padding: 6px 8px; background: #f9fafb; border-radius: 6px; overflow-x: auto; font-size: .8rem; max-height: 28em; }
pre .add { color: #166534; background: #dcfce7; display: block; } pre .del { color: #991b1b; background: #fee2e2; display: block; }
.diagram { overflow-x: auto; border: 1px solid #e5e7eb; border-radius: 8px; padding: 8px; background: #fff; }
.diagram svg { max-width: 100%; height: auto; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; font-size: .85rem; margin: 6px 0; }
.legend span::before { content: ""; display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -1px; border: 1px solid; border-radius: 3px; }
.legend .reached::before { background: #dcfce7; border-color: #15803d; } .legend .missed::before { background: #ffedd5; border-color: #c2410c; }
.legend .unreachable::before { background: #f3f4f6; border-color: #9ca3af; border-style: dashed; } .legend .guarded::before { border-style: dashed; border-color: #111827; }
`;

/** A whole page: `title` as its heading, `body` (HTML) below it. */
export function htmlPage(title: string, body: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="package-sdk">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
