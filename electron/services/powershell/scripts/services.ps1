# windeck-script: services v1
# Get-Service for the named services: Name, DisplayName, Status, StartType (enums as numbers in 5.1).
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

# Missing services are skipped (the caller compares with what it asked for). The pipeline is unrolled, so one
# service prints a bare object and none prints nothing, exactly like `Get-Service | ConvertTo-Json`.
$found = foreach ($name in @($A.names)) { Get-Service -Name $name -ErrorAction SilentlyContinue }
$found | Select-Object Name, DisplayName, Status, StartType | ConvertTo-Json -Depth 2
exit 0
