# windeck-script: processes v1
# Win32_Process rows (id, parent, name, command line, start) for the named executables.
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

$wanted = @($A.names | ForEach-Object { ($_ -replace '\.exe$', '').ToLowerInvariant() })
$rows = Get-CimInstance -ClassName Win32_Process |
    Where-Object { $wanted.Count -eq 0 -or $wanted -contains ($_.Name -replace '\.exe$', '').ToLowerInvariant() } |
    Sort-Object ProcessId |
    ForEach-Object {
        [ordered]@{
            ProcessId       = [int]$_.ProcessId
            ParentProcessId = [int]$_.ParentProcessId
            Name            = $_.Name
            CommandLine     = $_.CommandLine
            CreationDate    = $_.CreationDate
        }
    }
ConvertTo-Json -InputObject @($rows) -Depth 3
exit 0
