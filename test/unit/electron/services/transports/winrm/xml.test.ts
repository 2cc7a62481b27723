import { describe, expect, it } from 'vitest';
import { XmlError, child, descendants, escapeXmlAttr, escapeXmlText, parseXml } from '../../../../../../electron/services/transports/winrm/xml';

describe('parseXml', () => {
  it('resolves namespaces by URI, whatever the prefixes', () => {
    const a = parseXml('<s:Envelope xmlns:s="urn:soap" xmlns:w="urn:w"><s:Body><w:Item Name="x">1</w:Item></s:Body></s:Envelope>');
    const b = parseXml('<env:Envelope xmlns:env="urn:soap"><env:Body><Item xmlns="urn:w" Name="x">1</Item></env:Body></env:Envelope>');
    for (const root of [a, b]) {
      expect(root).toMatchObject({ ns: 'urn:soap', local: 'Envelope' });
      const item = child(child(root, 'urn:soap', 'Body'), 'urn:w', 'Item');
      expect(item?.attrs['Name']).toBe('x');
      expect(item?.text).toBe('1');
    }
  });

  it('decodes entities, character references, CDATA; skips comments and the XML declaration', () => {
    const root = parseXml('<?xml version="1.0" encoding="utf-8"?>\n<!-- c --><r a="&quot;&amp;&#x41;">&lt;t&gt; &#233;<![CDATA[<raw>&amp;]]></r>');
    expect(root.attrs['a']).toBe('"&A');
    expect(root.text).toBe('<t> é<raw>&amp;');
  });

  it('keys xml:lang and other prefixed attributes by namespace too', () => {
    const root = parseXml('<r xml:lang="en-US"/>');
    expect(root.attrs['lang']).toBe('en-US');
    expect(root.attrs['{http://www.w3.org/XML/1998/namespace}lang']).toBe('en-US');
  });

  it('refuses DOCTYPE (no entity expansion) and malformed documents', () => {
    expect(() => parseXml('<!DOCTYPE r [<!ENTITY x "boom">]><r>&x;</r>')).toThrow(XmlError);
    for (const bad of ['<r>', '<r></s>', '<r a=b/>', '<r>&bogus;</r>', '<a:r/>', '<r/><r/>', 'text', '', '<r>a & b</r>']) {
      expect(() => parseXml(bad), bad).toThrow(XmlError);
    }
  });

  it('caps nesting depth', () => {
    expect(() => parseXml('<a>'.repeat(100) + '</a>'.repeat(100))).toThrow(/deeply/);
  });

  it('finds descendants', () => {
    const root = parseXml('<r xmlns="urn:x"><a><b>1</b></a><b>2</b></r>');
    expect(descendants(root, 'urn:x', 'b').map((e) => e.text)).toEqual(['1', '2']);
  });

  it('escapes text and attributes so they read back unchanged', () => {
    const hostile = `"quotes' <tags> & ampersands ]]> $(x) \`y\``;
    const root = parseXml(`<r v="${escapeXmlAttr(hostile)}">${escapeXmlText(hostile)}</r>`);
    expect(root.attrs['v']).toBe(hostile);
    expect(root.text).toBe(hostile);
  });
});
