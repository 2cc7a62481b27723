# windeck-script: hns-endpoints v1
# HNS endpoints as HNS returns them (Get-HnsEndpoint), always a JSON array.
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

if (-not (Get-Command Get-HnsEndpoint -ErrorAction SilentlyContinue)) { Import-Module HostNetworkingService -ErrorAction SilentlyContinue }
if (-not (Get-Command Get-HnsEndpoint -ErrorAction SilentlyContinue) -and (Test-Path 'C:\k\hns.psm1')) { Import-Module 'C:\k\hns.psm1' -DisableNameChecking }
$items = @(Get-HnsEndpoint)
ConvertTo-Json -InputObject $items -Depth 10
exit 0
