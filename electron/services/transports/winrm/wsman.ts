import { child, children, descendants, escapeXmlAttr, escapeXmlText, parseXml, type XmlElement } from './xml';

/**
 * WS-Management (DMTF DSP0226) with the Windows Remote Shell extensions of MS-WSMV: the SOAP envelopes a
 * client sends to create a cmd shell, run a command, feed stdin, receive output, signal and delete, and the
 * readers for what Windows answers (including SOAP faults). Pure functions: no I/O here.
 */

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  addressing: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  transfer: 'http://schemas.xmlsoap.org/ws/2004/09/transfer',
  wsman: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  msWsman: 'http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd',
  shell: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell',
  wsmanFault: 'http://schemas.microsoft.com/wbem/wsman/1/wsmanfault',
} as const;

export const RESOURCE_URI_CMD = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd';
export const ANONYMOUS = 'http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous';

export const ACTION = {
  create: 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Create',
  delete: 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Delete',
  command: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Command',
  send: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Send',
  receive: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Receive',
  signal: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Signal',
  fault: 'http://schemas.dmtf.org/wbem/wsman/1/wsman/fault',
} as const;

export const SIGNAL = {
  terminate: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/terminate',
  ctrlC: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/ctrl_c',
} as const;

export const COMMAND_STATE = {
  done: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done',
  running: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Running',
  pending: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Pending',
} as const;

/** WSManFault codes Windows uses that callers act on. */
export const WSMAN_FAULT_CODE = {
  operationTimeout: 2150858793, // ERROR_WSMAN_OPERATION_TIMEDOUT: Receive had nothing within OperationTimeout
  shellNotFound: 2150858843, // ERROR_WSMAN_UNEXPECTED_SELECTORS: "the shell was not found on the server"
  accessDenied: 5,
} as const;

export const DEFAULT_MAX_ENVELOPE_BYTES = 153_600;

export interface EnvelopeHeader {
  to: string;
  action: string;
  messageId: string;
  operationTimeoutMs: number;
  resourceUri?: string;
  shellId?: string;
  options?: Array<{ name: string; value: string }>;
  maxEnvelopeBytes?: number;
  locale?: string;
}

export function newMessageId(uuid: string): string {
  return `uuid:${uuid.toUpperCase()}`;
}

/** xs:duration with milliseconds, as Windows writes it: PT20.000S. */
export function formatDuration(ms: number): string {
  return `PT${(Math.max(0, ms) / 1000).toFixed(3)}S`;
}

/** Reads the xs:duration forms WS-Man peers send (PT60S, PT60.000S, P0DT0H1M0S). Null when unreadable. */
export function parseDurationMs(value: string): number | null {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value.trim());
  if (!m || value.trim() === 'P' || value.trim() === 'PT') return null;
  const [, d, h, min, s] = m;
  return Math.round(((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000 + Number(s ?? 0) * 1000);
}

export function buildEnvelope(header: EnvelopeHeader, body: string): string {
  const parts: string[] = [];
  parts.push(
    `<s:Envelope xmlns:s="${NS.soap}" xmlns:a="${NS.addressing}" xmlns:w="${NS.wsman}" xmlns:p="${NS.msWsman}" xmlns:rsp="${NS.shell}">`,
    '<s:Header>',
    `<a:To>${escapeXmlText(header.to)}</a:To>`,
    `<w:ResourceURI s:mustUnderstand="true">${escapeXmlText(header.resourceUri ?? RESOURCE_URI_CMD)}</w:ResourceURI>`,
    `<a:ReplyTo><a:Address s:mustUnderstand="true">${ANONYMOUS}</a:Address></a:ReplyTo>`,
    `<a:Action s:mustUnderstand="true">${escapeXmlText(header.action)}</a:Action>`,
    `<w:MaxEnvelopeSize s:mustUnderstand="true">${header.maxEnvelopeBytes ?? DEFAULT_MAX_ENVELOPE_BYTES}</w:MaxEnvelopeSize>`,
    `<a:MessageID>${escapeXmlText(header.messageId)}</a:MessageID>`,
    `<w:Locale xml:lang="${escapeXmlAttr(header.locale ?? 'en-US')}" s:mustUnderstand="false"/>`,
    `<p:DataLocale xml:lang="${escapeXmlAttr(header.locale ?? 'en-US')}" s:mustUnderstand="false"/>`,
    `<w:OperationTimeout>${formatDuration(header.operationTimeoutMs)}</w:OperationTimeout>`,
  );
  if (header.shellId !== undefined) {
    parts.push(`<w:SelectorSet><w:Selector Name="ShellId">${escapeXmlText(header.shellId)}</w:Selector></w:SelectorSet>`);
  }
  if (header.options && header.options.length > 0) {
    parts.push('<w:OptionSet>');
    for (const option of header.options) {
      parts.push(`<w:Option Name="${escapeXmlAttr(option.name)}">${escapeXmlText(option.value)}</w:Option>`);
    }
    parts.push('</w:OptionSet>');
  }
  parts.push('</s:Header>', `<s:Body>${body}</s:Body>`, '</s:Envelope>');
  return parts.join('');
}

type Base = Omit<EnvelopeHeader, 'action' | 'shellId' | 'options'>;

export function createShellRequest(base: Base & { codepage?: number; noProfile?: boolean; idleTimeoutMs?: number; workingDirectory?: string }): string {
  const body = [
    '<rsp:Shell>',
    base.workingDirectory ? `<rsp:WorkingDirectory>${escapeXmlText(base.workingDirectory)}</rsp:WorkingDirectory>` : '',
    base.idleTimeoutMs ? `<rsp:IdleTimeOut>${formatDuration(base.idleTimeoutMs)}</rsp:IdleTimeOut>` : '',
    '<rsp:InputStreams>stdin</rsp:InputStreams>',
    '<rsp:OutputStreams>stdout stderr</rsp:OutputStreams>',
    '</rsp:Shell>',
  ].join('');
  return buildEnvelope(
    {
      ...base,
      action: ACTION.create,
      options: [
        { name: 'WINRS_NOPROFILE', value: base.noProfile === false ? 'FALSE' : 'TRUE' },
        { name: 'WINRS_CODEPAGE', value: String(base.codepage ?? 65001) },
      ],
    },
    body,
  );
}

export function commandRequest(
  base: Base & { shellId: string; command: string; arguments?: string[]; skipCmdShell?: boolean; consoleModeStdin?: boolean },
): string {
  const args = (base.arguments ?? []).map((arg) => `<rsp:Arguments>${escapeXmlText(arg)}</rsp:Arguments>`).join('');
  return buildEnvelope(
    {
      ...base,
      action: ACTION.command,
      options: [
        { name: 'WINRS_CONSOLEMODE_STDIN', value: base.consoleModeStdin === false ? 'FALSE' : 'TRUE' },
        { name: 'WINRS_SKIP_CMD_SHELL', value: base.skipCmdShell ? 'TRUE' : 'FALSE' },
      ],
    },
    `<rsp:CommandLine><rsp:Command>${escapeXmlText(base.command)}</rsp:Command>${args}</rsp:CommandLine>`,
  );
}

export function sendRequest(base: Base & { shellId: string; commandId: string; data: Buffer; end: boolean }): string {
  const end = base.end ? ' End="true"' : '';
  return buildEnvelope(
    { ...base, action: ACTION.send },
    `<rsp:Send><rsp:Stream Name="stdin" CommandId="${escapeXmlAttr(base.commandId)}"${end}>${base.data.toString('base64')}</rsp:Stream></rsp:Send>`,
  );
}

export function receiveRequest(base: Base & { shellId: string; commandId: string; sequenceId?: number }): string {
  const seq = base.sequenceId === undefined ? '' : ` SequenceId="${base.sequenceId}"`;
  return buildEnvelope(
    { ...base, action: ACTION.receive },
    `<rsp:Receive${seq}><rsp:DesiredStream CommandId="${escapeXmlAttr(base.commandId)}">stdout stderr</rsp:DesiredStream></rsp:Receive>`,
  );
}

export function signalRequest(base: Base & { shellId: string; commandId: string; code: 'terminate' | 'ctrlC' }): string {
  return buildEnvelope(
    { ...base, action: ACTION.signal },
    `<rsp:Signal CommandId="${escapeXmlAttr(base.commandId)}"><rsp:Code>${SIGNAL[base.code]}</rsp:Code></rsp:Signal>`,
  );
}

export function deleteShellRequest(base: Base & { shellId: string }): string {
  return buildEnvelope({ ...base, action: ACTION.delete }, '');
}

// ---------------------------------------------------------------------------------------------------------
// Reading responses

export interface SoapFault {
  code: string;
  subcode: string | null;
  reason: string;
  wsmanCode: number | null;
  machine: string | null;
  /** f:Message, or the provider fault text, when Windows adds one. */
  detail: string | null;
}

export interface SoapResponse {
  action: string | null;
  relatesTo: string | null;
  header: XmlElement | undefined;
  body: XmlElement;
  fault: SoapFault | null;
}

export class WsmanParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WsmanParseError';
  }
}

const text = (element: XmlElement | undefined): string | null => (element ? element.text.trim() : null);

function flattenText(element: XmlElement): string {
  return (element.text + element.children.map(flattenText).join(' ')).replace(/\s+/g, ' ').trim();
}

export function parseSoap(xml: string): SoapResponse {
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (error) {
    throw new WsmanParseError(`response is not XML: ${(error as Error).message}`);
  }
  if (root.ns !== NS.soap || root.local !== 'Envelope') throw new WsmanParseError('response is not a SOAP 1.2 envelope');
  const header = child(root, NS.soap, 'Header');
  const body = child(root, NS.soap, 'Body');
  if (!body) throw new WsmanParseError('SOAP envelope has no Body');
  const faultEl = child(body, NS.soap, 'Fault');
  let fault: SoapFault | null = null;
  if (faultEl) {
    const code = child(faultEl, NS.soap, 'Code');
    const wsmanFault = descendants(faultEl, NS.wsmanFault, 'WSManFault')[0];
    const codeAttr = wsmanFault?.attrs['Code'];
    const message = wsmanFault ? child(wsmanFault, NS.wsmanFault, 'Message') : undefined;
    fault = {
      code: text(child(code, NS.soap, 'Value')) ?? '',
      subcode: text(child(child(code, NS.soap, 'Subcode'), NS.soap, 'Value')),
      reason: text(child(child(faultEl, NS.soap, 'Reason'), NS.soap, 'Text')) ?? '',
      wsmanCode: codeAttr !== undefined && /^\d+$/.test(codeAttr) ? Number(codeAttr) : null,
      machine: wsmanFault?.attrs['Machine'] ?? null,
      detail: message ? flattenText(message) || null : null,
    };
  }
  return {
    action: text(child(header, NS.addressing, 'Action')),
    relatesTo: text(child(header, NS.addressing, 'RelatesTo')),
    header,
    body,
    fault,
  };
}

/** One line a user can act on: the fault reason (what Windows says), its WSMan code and detail. */
export function describeFault(fault: SoapFault): string {
  const reason = fault.reason.replace(/\s+/g, ' ').trim() || fault.subcode || fault.code || 'unknown fault';
  const detail = fault.detail && fault.detail !== reason ? ` (${fault.detail})` : '';
  const code = fault.wsmanCode !== null ? ` [WSManFault ${fault.wsmanCode}]` : '';
  return `${reason}${detail}${code}`;
}

export function readShellId(response: SoapResponse): string {
  const selector = descendants(response.body, NS.wsman, 'Selector').find((el) => el.attrs['Name'] === 'ShellId');
  const id = text(selector) ?? text(descendants(response.body, NS.shell, 'ShellId')[0]);
  if (!id) throw new WsmanParseError('Create response carries no ShellId');
  return id;
}

export function readCommandId(response: SoapResponse): string {
  const id = text(descendants(response.body, NS.shell, 'CommandId')[0]);
  if (!id) throw new WsmanParseError('Command response carries no CommandId');
  return id;
}

export interface ReceiveChunk {
  stream: 'stdout' | 'stderr';
  data: Buffer;
  end: boolean;
}

export interface ReceiveResult {
  chunks: ReceiveChunk[];
  done: boolean;
  exitCode: number | null;
  state: string | null;
}

export function readReceive(response: SoapResponse, commandId: string): ReceiveResult {
  const receive = child(response.body, NS.shell, 'ReceiveResponse');
  if (!receive) throw new WsmanParseError('Receive response has no ReceiveResponse');
  const chunks: ReceiveChunk[] = [];
  for (const stream of children(receive, NS.shell, 'Stream')) {
    const id = stream.attrs['CommandId'];
    if (id !== undefined && id.toUpperCase() !== commandId.toUpperCase()) continue;
    const name = stream.attrs['Name'];
    if (name !== 'stdout' && name !== 'stderr') continue;
    const payload = stream.text.replace(/\s+/g, '');
    if (payload !== '' && !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) throw new WsmanParseError(`stream ${name} is not base64`);
    chunks.push({ stream: name, data: Buffer.from(payload, 'base64'), end: stream.attrs['End'] === 'true' });
  }
  const stateEl = children(receive, NS.shell, 'CommandState').find(
    (el) => el.attrs['CommandId'] === undefined || el.attrs['CommandId'].toUpperCase() === commandId.toUpperCase(),
  );
  const state = stateEl?.attrs['State'] ?? null;
  const done = state === COMMAND_STATE.done;
  const exitText = text(child(stateEl, NS.shell, 'ExitCode'));
  let exitCode: number | null = null;
  if (exitText !== null && /^-?\d+$/.test(exitText)) {
    // Windows reports exit codes as unsigned 32-bit numbers; show negative NTSTATUS-style values as signed.
    const value = Number(exitText);
    exitCode = value > 0x7fff_ffff ? value - 0x1_0000_0000 : value;
  }
  return { chunks, done, exitCode, state };
}
