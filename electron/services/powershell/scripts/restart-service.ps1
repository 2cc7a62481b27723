# windeck-script: restart-service v1
# MUTATING: restart one service (Restart-Service -Force), wait for Running, start dependents that ran before.
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

$name = [string]$A.name
$timeout = [TimeSpan]::FromSeconds([int]$A.timeoutSeconds)
$clock = [System.Diagnostics.Stopwatch]::StartNew()
$svc = Get-Service -Name $name
$before = [ordered]@{ Status = $svc.Status; StartType = $svc.StartType }
$dependents = @($svc.DependentServices | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name })
$failure = $null
try {
    Restart-Service -Name $name -Force -ErrorAction Stop
    $svc.WaitForStatus('Running', $timeout)
    foreach ($d in $dependents) { Start-Service -Name $d -ErrorAction Stop }
} catch {
    $failure = $_.Exception.Message
}
$svc.Refresh()
$after = [ordered]@{ Status = $svc.Status; StartType = $svc.StartType }
$dependentsAfter = @(foreach ($d in $dependents) { [ordered]@{ Name = $d; Status = (Get-Service -Name $d).Status } })
ConvertTo-Json -Depth 3 -InputObject ([ordered]@{
    Name            = $svc.Name
    Before          = $before
    After           = $after
    Dependents      = $dependents
    DependentsAfter = $dependentsAfter
    Succeeded       = ($null -eq $failure)
    Error           = $failure
    DurationMs      = [long]$clock.ElapsedMilliseconds
})
exit 0
