import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkScriptText, loadScript, NEVER_RUN_NOTICE, scriptDirCandidates } from '../../../../../electron/services/powershell/script-loader';
import { SCRIPT_IDS } from '../../../../../electron/services/powershell/script-ids';
import { SCRIPT_ARGS } from '../../../../../electron/services/powershell/invoke';
import { SCRIPT_HANDLERS } from '../../../../../electron/sim/windows-node/script-handlers';

describe('shipped PowerShell scripts', () => {
  const dir = scriptDirCandidates({})[0]!;

  it('there is exactly one script file per script id, and nothing else in the folder', () => {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ps1')).sort();
    expect(files).toEqual([...SCRIPT_IDS].map((id) => `${id}.ps1`).sort());
  });

  it.each([...SCRIPT_IDS])('%s: marker line, never-run notice, param block, UTF-8 forced, JSON out, arguments decoded from base64', async (id) => {
    const s = await loadScript(id);
    expect(s.text.split(/\r?\n/, 1)[0]).toBe(`# windeck-script: ${id} v${s.version}`);
    expect(s.text).toContain(NEVER_RUN_NOTICE);
    expect(s.text).toMatch(/^param\(\[Parameter\(Mandatory = \$true\)\]\[string\]\$WindeckArgs\)$/m);
    expect(s.text).toContain('[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false');
    expect(s.text).toContain('[System.Convert]::FromBase64String($WindeckArgs)) | ConvertFrom-Json');
    expect(s.text).toMatch(/ConvertTo-Json/);
    expect(s.text.trimEnd().endsWith('exit 0')).toBe(true);
    // Arguments are read from $A only; no Invoke-Expression, no string-built commands.
    expect(s.text).not.toMatch(/Invoke-Expression|\biex\b|Start-Process|cmd(\.exe)? \/c/i);
    expect(s.sha256).toMatch(/^[0-9a-f]{64}$/);
    // The simulator knows every script (STYLE.md: a changed script is taught to the simulator).
    expect(SCRIPT_HANDLERS[id]).toBeTypeOf('function');
    expect(SCRIPT_ARGS[id]).toBeDefined();
  });

  it('only restart-service mutates, and says so in its header', async () => {
    for (const id of SCRIPT_IDS) {
      const text = (await loadScript(id)).text;
      const mutating = /Restart-Service|Stop-Service|Start-Service|Remove-|Set-Item|New-Item/.test(text);
      expect(mutating, id).toBe(id === 'restart-service');
    }
    expect((await loadScript('restart-service')).text.split('\n')[1]).toContain('MUTATING');
  });

  it('refuses a script without its marker or notice', () => {
    expect(() => checkScriptText('os', 'Get-Date\n')).toThrow(/windeck-script: os/);
    expect(() => checkScriptText('os', '# windeck-script: os v1\nGet-Date\n')).toThrow(/never run/);
    expect(() => checkScriptText('os', '# windeck-script: services v1\n# ' + NEVER_RUN_NOTICE)).toThrow();
    expect(checkScriptText('os', '# windeck-script: os v3\n# ' + NEVER_RUN_NOTICE)).toEqual({ version: 3 });
  });

  it('a missing scripts folder is a clear INTERNAL error', async () => {
    await expect(loadScript('os', [path.join(dir, 'nope')])).rejects.toThrow(/not found/);
  });
});
