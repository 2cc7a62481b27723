import { describe, expect, it } from 'vitest';
import {
  ACTION,
  NS,
  RESOURCE_URI_CMD,
  WSMAN_FAULT_CODE,
  commandRequest,
  createShellRequest,
  deleteShellRequest,
  describeFault,
  formatDuration,
  parseDurationMs,
  parseSoap,
  readCommandId,
  readReceive,
  readShellId,
  receiveRequest,
  sendRequest,
  signalRequest,
} from '../../../../../../electron/services/transports/winrm/wsman';
import { child, children, descendants, parseXml } from '../../../../../../electron/services/transports/winrm/xml';

const base = { to: 'http://127.0.10.11:5985/wsman', messageId: 'uuid:0A442A7F-4627-43AE-8751-900B509F0A1F', operationTimeoutMs: 20_000 };
const SHELL = '0A442A7F-4627-43AE-8751-900B509F0A1F';
const CMD = '77DF7BB6-B5A0-4777-ABD9-9823C0774074';

function header(xml: string) {
  const root = parseXml(xml);
  expect(root).toMatchObject({ ns: NS.soap, local: 'Envelope' });
  const h = child(root, NS.soap, 'Header');
  return {
    root,
    body: child(root, NS.soap, 'Body'),
    action: child(h, NS.addressing, 'Action')?.text,
    resourceUri: child(h, NS.wsman, 'ResourceURI')?.text,
    messageId: child(h, NS.addressing, 'MessageID')?.text,
    to: child(h, NS.addressing, 'To')?.text,
    timeout: child(h, NS.wsman, 'OperationTimeout')?.text,
    maxEnvelope: child(h, NS.wsman, 'MaxEnvelopeSize')?.text,
    shellId: descendants(h ?? root, NS.wsman, 'Selector').find((s) => s.attrs['Name'] === 'ShellId')?.text,
    options: Object.fromEntries(children(child(h, NS.wsman, 'OptionSet'), NS.wsman, 'Option').map((o) => [o.attrs['Name'], o.text])),
  };
}

describe('WS-Management request envelopes', () => {
  it('Create: cmd shell, UTF-8 code page, no profile, stdin/stdout/stderr streams', () => {
    const h = header(createShellRequest(base));
    expect(h).toMatchObject({
      action: ACTION.create,
      resourceUri: RESOURCE_URI_CMD,
      messageId: base.messageId,
      to: base.to,
      timeout: 'PT20.000S',
      maxEnvelope: '153600',
    });
    expect(h.options).toEqual({ WINRS_NOPROFILE: 'TRUE', WINRS_CODEPAGE: '65001' });
    const shell = child(h.body, NS.shell, 'Shell');
    expect(child(shell, NS.shell, 'InputStreams')?.text).toBe('stdin');
    expect(child(shell, NS.shell, 'OutputStreams')?.text).toBe('stdout stderr');
  });

  it('Command: the command and each argument as escaped text; values come back unchanged', () => {
    const hostile = ['"double" \'single\' `back` $(sub) ; & | < > %PATH%', 'line\nbreak'];
    const h = header(commandRequest({ ...base, shellId: SHELL, command: 'powershell.exe -Command -', arguments: hostile }));
    expect(h.action).toBe(ACTION.command);
    expect(h.shellId).toBe(SHELL);
    expect(h.options).toEqual({ WINRS_CONSOLEMODE_STDIN: 'TRUE', WINRS_SKIP_CMD_SHELL: 'FALSE' });
    const line = child(h.body, NS.shell, 'CommandLine');
    expect(child(line, NS.shell, 'Command')?.text).toBe('powershell.exe -Command -');
    expect(children(line, NS.shell, 'Arguments').map((a) => a.text)).toEqual(hostile);
  });

  it('Send: base64 stdin for the command, End="true" on the last chunk only', () => {
    const data = Buffer.from('# windeck-script: services v1\r\n\u00e9\r\n');
    for (const end of [false, true]) {
      const h = header(sendRequest({ ...base, shellId: SHELL, commandId: CMD, data, end }));
      expect(h.action).toBe(ACTION.send);
      const stream = child(child(h.body, NS.shell, 'Send'), NS.shell, 'Stream');
      expect(stream?.attrs).toMatchObject({ Name: 'stdin', CommandId: CMD });
      expect(stream?.attrs['End']).toBe(end ? 'true' : undefined);
      expect(Buffer.from(stream?.text ?? '', 'base64').equals(data)).toBe(true);
    }
  });

  it('Receive, Signal (terminate, ctrl_c) and Delete', () => {
    const r = header(receiveRequest({ ...base, shellId: SHELL, commandId: CMD }));
    expect(r.action).toBe(ACTION.receive);
    const desired = child(child(r.body, NS.shell, 'Receive'), NS.shell, 'DesiredStream');
    expect(desired?.attrs['CommandId']).toBe(CMD);
    expect(desired?.text).toBe('stdout stderr');

    const t = header(signalRequest({ ...base, shellId: SHELL, commandId: CMD, code: 'terminate' }));
    expect(child(child(t.body, NS.shell, 'Signal'), NS.shell, 'Code')?.text).toBe('http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/terminate');
    const c = header(signalRequest({ ...base, shellId: SHELL, commandId: CMD, code: 'ctrlC' }));
    expect(child(child(c.body, NS.shell, 'Signal'), NS.shell, 'Code')?.text).toBe('http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/ctrl_c');

    const d = header(deleteShellRequest({ ...base, shellId: SHELL }));
    expect(d.action).toBe(ACTION.delete);
    expect(d.shellId).toBe(SHELL);
    expect(d.body?.children).toEqual([]);
  });

  it('durations: Windows forms read back', () => {
    expect(formatDuration(20_000)).toBe('PT20.000S');
    expect(formatDuration(1_500)).toBe('PT1.500S');
    expect(parseDurationMs('PT60.000S')).toBe(60_000);
    expect(parseDurationMs('PT60S')).toBe(60_000);
    expect(parseDurationMs('P0DT0H1M30S')).toBe(90_000);
    expect(parseDurationMs('PT7200.000S')).toBe(7_200_000);
    expect(parseDurationMs('soon')).toBeNull();
  });
});

// Response shapes from MS-WSMV 4.7 (remote shell examples), with the spec's whitespace inside elements.
const CREATE_RESPONSE = `<s:Envelope xml:lang="en-US" xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:x="http://schemas.xmlsoap.org/ws/2004/09/transfer" xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd" xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell">
<s:Header><a:Action>http://schemas.xmlsoap.org/ws/2004/09/transfer/CreateResponse</a:Action><a:MessageID>uuid:1</a:MessageID><a:To>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:To><a:RelatesTo>uuid:0A442A7F-4627-43AE-8751-900B509F0A1F</a:RelatesTo></s:Header>
<s:Body><x:ResourceCreated><a:Address>http://localhost:80/wsman</a:Address><a:ReferenceParameters><w:ResourceURI>http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd</w:ResourceURI><w:SelectorSet><w:Selector Name="ShellId">
  ${SHELL}
</w:Selector></w:SelectorSet></a:ReferenceParameters></x:ResourceCreated></s:Body></s:Envelope>`;

const RECEIVE_RUNNING = `<s:Envelope xml:lang="en-US" xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing">
<s:Header><wsa:Action>http://schemas.microsoft.com/wbem/wsman/1/windows/shell/ReceiveResponse</wsa:Action><wsa:RelatesTo>uuid:D384DEF8-351E-41F0-B3DA-C91BE1A58A09</wsa:RelatesTo></s:Header>
<s:Body><rsp:ReceiveResponse xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell" SequenceId="0">
<rsp:Stream xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell" Name="stdout" CommandId="${CMD.toLowerCase()}">
ZDpcdGVtcFxvdXQudHh0LCBEZWxldGUgKFkvTik/IA==
</rsp:Stream>
<rsp:CommandState xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Running" CommandId="${CMD.toLowerCase()}">
<rsp:ExitCode>0</rsp:ExitCode></rsp:CommandState></rsp:ReceiveResponse></s:Body></s:Envelope>`;

const RECEIVE_DONE = `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell"><s:Body><rsp:ReceiveResponse>
<rsp:Stream Name="stderr" CommandId="${CMD}">ZXJyb3I=</rsp:Stream>
<rsp:Stream Name="stdout" CommandId="OTHER-COMMAND">aWdub3JlZA==</rsp:Stream>
<rsp:Stream Name="stdout" CommandId="${CMD}" End="true"></rsp:Stream><rsp:Stream Name="stderr" CommandId="${CMD}" End="true"></rsp:Stream>
<rsp:CommandState CommandId="${CMD}" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done"><rsp:ExitCode>4294967295</rsp:ExitCode></rsp:CommandState>
</rsp:ReceiveResponse></s:Body></s:Envelope>`;

const TIMED_OUT_FAULT = `<s:Envelope xml:lang="en-US" xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd"><s:Header><a:Action>http://schemas.dmtf.org/wbem/wsman/1/wsman/fault</a:Action><a:RelatesTo>uuid:X</a:RelatesTo></s:Header><s:Body><s:Fault><s:Code><s:Value>s:Receiver</s:Value><s:Subcode><s:Value>w:TimedOut</s:Value></s:Subcode></s:Code><s:Reason><s:Text xml:lang="en-US">The WS-Management service cannot complete the operation within the time specified in OperationTimeout.  </s:Text></s:Reason><s:Detail><f:WSManFault xmlns:f="http://schemas.microsoft.com/wbem/wsman/1/wsmanfault" Code="2150858793" Machine="win-node-1"><f:Message>The WS-Management service cannot complete the operation within the time specified in OperationTimeout.  </f:Message></f:WSManFault></s:Detail></s:Fault></s:Body></s:Envelope>`;

const ACCESS_DENIED_FAULT = `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><s:Fault><s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>w:AccessDenied</s:Value></s:Subcode></s:Code><s:Reason><s:Text xml:lang="en-US">Access is denied. </s:Text></s:Reason><s:Detail><f:WSManFault xmlns:f="http://schemas.microsoft.com/wbem/wsman/1/wsmanfault" Code="5" Machine="node"><f:Message><f:ProviderFault provider="Shell cmd plugin">The user lacks the right to log on remotely.</f:ProviderFault></f:Message></f:WSManFault></s:Detail></s:Fault></s:Body></s:Envelope>`;

describe('reading WS-Management responses', () => {
  it('reads the ShellId of a Create response, trimming the whitespace Windows may add', () => {
    const response = parseSoap(CREATE_RESPONSE);
    expect(response.fault).toBeNull();
    expect(response.relatesTo).toBe('uuid:0A442A7F-4627-43AE-8751-900B509F0A1F');
    expect(readShellId(response)).toBe(SHELL);
  });

  it('reads the CommandId of a Command response', () => {
    const xml = `<s:Envelope xmlns:s="${NS.soap}" xmlns:rsp="${NS.shell}"><s:Body><rsp:CommandResponse><rsp:CommandId>${CMD}</rsp:CommandId></rsp:CommandResponse></s:Body></s:Envelope>`;
    expect(readCommandId(parseSoap(xml))).toBe(CMD);
  });

  it('reads streamed output while Running (base64 across lines, command ids in any case)', () => {
    const result = readReceive(parseSoap(RECEIVE_RUNNING), CMD);
    expect(result.done).toBe(false);
    expect(result.chunks).toEqual([{ stream: 'stdout', data: Buffer.from('d:\\temp\\out.txt, Delete (Y/N)? '), end: false }]);
  });

  it('reads the final Receive: End markers, other commands ignored, Done with a signed exit code', () => {
    const result = readReceive(parseSoap(RECEIVE_DONE), CMD);
    expect(result.done).toBe(true);
    expect(result.exitCode).toBe(-1);
    expect(result.chunks.map((c) => [c.stream, c.data.toString(), c.end])).toEqual([
      ['stderr', 'error', false],
      ['stdout', '', true],
      ['stderr', '', true],
    ]);
  });

  it('reads SOAP faults with their WSManFault code and text', () => {
    const timedOut = parseSoap(TIMED_OUT_FAULT).fault;
    expect(timedOut).toMatchObject({ code: 's:Receiver', subcode: 'w:TimedOut', wsmanCode: WSMAN_FAULT_CODE.operationTimeout, machine: 'win-node-1' });
    expect(describeFault(timedOut!)).toBe(
      'The WS-Management service cannot complete the operation within the time specified in OperationTimeout. [WSManFault 2150858793]',
    );
    const denied = parseSoap(ACCESS_DENIED_FAULT).fault;
    expect(denied?.wsmanCode).toBe(5);
    expect(describeFault(denied!)).toBe('Access is denied. (The user lacks the right to log on remotely.) [WSManFault 5]');
  });

  it('rejects what is not a SOAP envelope, and output that is not base64', () => {
    expect(() => parseSoap('<html><body>Bad Request</body></html>')).toThrow(/SOAP/);
    expect(() => parseSoap('not xml')).toThrow(/not XML/);
    const bad = RECEIVE_RUNNING.replace('ZDpcdGVtcFxvdXQudHh0LCBEZWxldGUgKFkvTik/IA==', '<<not base64>>'.replace(/</g, '&lt;'));
    expect(() => readReceive(parseSoap(bad), CMD)).toThrow(/base64/);
  });
});
