import { describe, expect, it } from 'vitest';
import { escapeHtml, renderFormHtml } from '../../forms/render-html.js';

/** The opening tag of the element with this attribute, e.g. `id="ag-email"`. */
function tagWith(html: string, attribute: string): string {
  const at = html.indexOf(attribute);
  expect(at, `no element with ${attribute}`).toBeGreaterThanOrEqual(0);
  return html.slice(html.lastIndexOf('<', at), html.indexOf('>', at) + 1);
}

describe('renderFormHtml', () => {
  it('escapes everything a sender wrote', () => {
    const html = renderFormHtml(
      {
        type: 'object',
        title: '<script>alert(1)</script>',
        properties: {
          '"><img src=x onerror=alert(1)>': { type: 'string', title: '<b>Name</b>', description: "it's <i>" },
          pick: { type: 'string', enum: ['<a>', '"b"', "'c'"] },
        },
      },
      { values: { pick: '<a>' }, errors: { pick: '<em>no</em>' } },
    );
    expect(html).not.toMatch(/<script|<img|<b>|<i>|<em>|<a>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;Name&lt;/b&gt;');
    expect(html).toContain('&lt;em&gt;no&lt;/em&gt;');
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('renders one control per type with its constraints and data attributes', () => {
    const html = renderFormHtml(
      {
        type: 'object',
        required: ['email', 'day'],
        properties: {
          email: {
            type: 'string',
            format: 'email',
            title: 'Email',
            errorMessages: { invalid: 'Enter your full address', required: 'Enter an address first' },
          },
          day: { type: 'string', format: 'date', formatMinimum: '2025-01-01', formatMaximum: '2025-12-31' },
          at: { type: 'string', format: 'date-time' },
          site: { type: 'string', format: 'uri' },
          nick: { type: 'string', minLength: 2, maxLength: 20 },
          seats: { type: 'integer', minimum: 1, maximum: 9 },
          size: { type: 'string', enum: ['S', 'M', 'L'] },
          colour: { type: 'string', enum: ['red', 'green', 'blue', 'black', 'white'] },
          extras: { type: 'array', items: { type: 'string', enum: ['wifi', 'parking'] } },
          agree: { type: 'boolean', description: 'Tick to agree' },
          address: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
          people: { type: 'array', items: { type: 'object' } },
        },
      },
      { idPrefix: 'q1', submitLabel: 'Book' },
    );
    expect(tagWith(html, 'id="q1-email"')).toMatch(/type="email"/);
    const emailField = tagWith(html, 'data-field="email"');
    expect(emailField).toContain('data-required="true"');
    expect(emailField).toContain('data-format="email"');
    expect(emailField).toContain('data-error-invalid="Enter your full address"');
    expect(emailField).toContain('data-error-required="Enter an address first"');
    expect(html).toMatch(/<p class="field-error" id="q1-email-error" role="alert"><\/p>/);
    expect(tagWith(html, 'id="q1-day"')).toMatch(/type="date".*min="2025-01-01" max="2025-12-31"/);
    expect(tagWith(html, 'id="q1-at"')).toContain('type="datetime-local"');
    expect(tagWith(html, 'id="q1-site"')).toContain('type="url"');
    expect(tagWith(html, 'id="q1-nick"')).toMatch(/minlength="2" maxlength="20"/);
    expect(tagWith(html, 'id="q1-seats"')).toMatch(/type="number".*step="1".*min="1" max="9"/);
    expect(tagWith(html, 'data-field="size"')).toMatch(/^<fieldset/);
    expect(html.match(/type="radio" id="q1-size-\d"/g)).toHaveLength(3);
    expect(tagWith(html, 'id="q1-colour"')).toMatch(/^<select/);
    expect(html.match(/type="checkbox" id="q1-extras-\d" name="extras"/g)).toHaveLength(2);
    expect(tagWith(html, 'id="q1-agree"')).toMatch(/type="checkbox".*name="agree" value="true"/);
    expect(html).toContain('Tick to agree');
    expect(tagWith(html, 'data-field="address"')).toMatch(/^<fieldset/);
    expect(tagWith(html, 'id="q1-address_city"')).toContain('name="address.city"');
    // A required child of an optional group is not required: an empty group is a valid answer.
    expect(tagWith(html, 'data-field="address.city"')).not.toContain('data-required');
    expect(tagWith(html, 'id="q1-people"')).toMatch(/^<textarea.*class="ag-json"/);
    expect(html).toContain('>Book</button>');
    expect(html).toContain('data-askgate-form');
  });

  it('prefills values and errors, and hides fields whose visibleWhen does not hold', () => {
    const schema = {
      type: 'object',
      properties: {
        contact: { type: 'boolean', default: false },
        email: { type: 'string', format: 'email', visibleWhen: { field: 'contact', equals: true } },
        note: { type: 'string' },
      },
    };
    const hidden = renderFormHtml(schema);
    expect(tagWith(hidden, 'data-field="email"')).toMatch(/ hidden/);
    expect(tagWith(hidden, 'data-field="email"')).toContain(
      'data-visible-when="{&quot;field&quot;:&quot;contact&quot;,&quot;equals&quot;:true}"',
    );
    expect(tagWith(hidden, 'id="ag-email"')).toMatch(/ disabled/);

    const shown = renderFormHtml(schema, {
      values: { contact: true, email: 'bad', note: 'x"y' },
      errors: { email: 'Enter a valid email address', '(root)': 'Not accepted' },
    });
    expect(tagWith(shown, 'data-field="email"')).not.toMatch(/ hidden/);
    expect(tagWith(shown, 'id="ag-email"')).toMatch(/aria-invalid="true".*value="bad"/);
    expect(shown).toContain('<p class="field-error" id="ag-email-error" role="alert">Enter a valid email address</p>');
    expect(tagWith(shown, 'id="ag-note"')).toContain('value="x&quot;y"');
    expect(shown).toMatch(/class="form-error"[^>]*>Not accepted</);
    expect(tagWith(shown, 'id="ag-contact"')).toContain(' checked');
  });

  it('renders a bare group without frame or heading, its fields still named under it', () => {
    const schema = {
      type: 'object',
      required: ['args'],
      properties: {
        args: {
          type: 'object',
          title: 'Arguments',
          required: ['to'],
          properties: { to: { type: 'string', title: 'To' } },
        },
      },
    };
    const framed = renderFormHtml(schema, { values: { args: { to: 'ada@example.com' } } });
    expect(framed).toContain('<legend>Arguments <span class="ag-required" aria-hidden="true">*</span></legend>');
    const bare = renderFormHtml(schema, { values: { args: { to: 'ada@example.com' } }, bareGroups: ['args'] });
    expect(bare).not.toContain('<fieldset');
    expect(bare).not.toContain('<legend');
    expect(tagWith(bare, 'data-field="args"')).toMatch(/^<div class="ag-field ag-group-bare" data-field="args"[ >]/);
    expect(tagWith(bare, 'name="args.to"')).toContain('value="ada@example.com"');
    expect(bare).toContain('>To <span class="ag-required" aria-hidden="true">*</span></label>');
  });
});
