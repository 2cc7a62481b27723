# windeck-script: net-adapters v1
# Get-NetAdapter rows and IPv4 addresses per interface.
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

$adapters = @(Get-NetAdapter -IncludeHidden:$false | Sort-Object ifIndex | Select-Object Name, InterfaceDescription, ifIndex, Status, MacAddress, LinkSpeed, MtuSize)
$addresses = @(Get-NetIPAddress -AddressFamily IPv4 -ErrorAction SilentlyContinue | Where-Object { $_.InterfaceAlias -notlike 'Loopback*' } |
    Sort-Object InterfaceIndex | Select-Object InterfaceAlias, InterfaceIndex, IPAddress, PrefixLength)
ConvertTo-Json -InputObject ([ordered]@{ Adapters = $adapters; IPAddresses = $addresses }) -Depth 4
exit 0
