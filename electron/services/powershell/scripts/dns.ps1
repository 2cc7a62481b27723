# windeck-script: dns v1
# Resolve-DnsName (type A, DNS only) of the given names from the node, plus its suffix search list.
# NOTE: this script has never run on a real Windows node. It was written from Microsoft documentation and
# checked only against the Windeck Windows node simulator (electron/sim/windows-node). Until someone runs it on
# Windows Server 2019/2022 and records the output, treat unexpected output as a script bug, not a node fault.
# Arguments arrive as base64 UTF-8 JSON in -WindeckArgs (never spliced into this text); output is JSON on
# stdout, UTF-8; failures are one "windeck-script-error: ..." line on stderr and exit code 1.
param([Parameter(Mandatory = $true)][string]$WindeckArgs)
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false
trap { [Console]::Error.WriteLine('windeck-script-error: ' + $_.Exception.Message); exit 1 }
$A = [System.Text.Encoding]::UTF8.GetString([System.Convert]::FromBase64String($WindeckArgs)) | ConvertFrom-Json

$results = foreach ($name in @($A.names)) {
    try {
        $answers = @(Resolve-DnsName -Name $name -Type A -DnsOnly -QuickTimeout -ErrorAction Stop |
            Where-Object { $_.Type -eq 'A' } | Select-Object Name, Type, TTL, Section, IPAddress)
        [ordered]@{ Query = $name; Succeeded = $true; Answers = $answers; Error = $null }
    } catch {
        [ordered]@{ Query = $name; Succeeded = $false; Answers = @(); Error = $_.Exception.Message }
    }
}
$suffixes = @((Get-DnsClientGlobalSetting).SuffixSearchList)
ConvertTo-Json -InputObject ([ordered]@{ SuffixSearchList = $suffixes; Results = @($results) }) -Depth 5
exit 0
