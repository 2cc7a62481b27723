# windeck-script: service-config v1
# Win32_Service row, DependOnService and nssm parameters (Application, AppParameters, ...) per service.
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

$rows = foreach ($name in @($A.names)) {
    $svc = Get-CimInstance -ClassName Win32_Service -Filter ("Name='{0}'" -f ($name -replace "'", "''")) -ErrorAction SilentlyContinue
    if ($null -eq $svc) { continue }
    $key = "HKLM:\SYSTEM\CurrentControlSet\Services\$($svc.Name)"
    $depends = @((Get-ItemProperty -Path $key -Name DependOnService -ErrorAction SilentlyContinue).DependOnService)
    $nssm = $null
    $params = Get-ItemProperty -Path "$key\Parameters" -ErrorAction SilentlyContinue
    if ($null -ne $params -and $null -ne $params.Application) {
        $nssm = [ordered]@{
            Application         = [string]$params.Application
            AppParameters       = [string]$params.AppParameters
            AppDirectory        = [string]$params.AppDirectory
            AppEnvironmentExtra = @($params.AppEnvironmentExtra | Where-Object { $_ })
        }
    }
    [ordered]@{
        Name            = $svc.Name
        DisplayName     = $svc.DisplayName
        State           = $svc.State
        StartMode       = $svc.StartMode
        PathName        = $svc.PathName
        StartName       = $svc.StartName
        ProcessId       = [int]$svc.ProcessId
        DependOnService = @($depends | Where-Object { $_ })
        Nssm            = $nssm
    }
}
ConvertTo-Json -InputObject @($rows) -Depth 4
exit 0
