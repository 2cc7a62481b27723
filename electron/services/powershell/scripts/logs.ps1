# windeck-script: logs v1
# Tails (base64, capped per file) of log files under the given folders, changed within the window.
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

$max = [long]$A.maxBytesPerFile
$since = [DateTimeOffset]::FromUnixTimeMilliseconds([long]$A.sinceEpochMs).UtcDateTime
$rows = foreach ($source in @($A.sources)) {
    if (-not (Test-Path -LiteralPath $source.dir -PathType Container)) { continue }
    Get-ChildItem -LiteralPath $source.dir -Filter $source.filter -File -ErrorAction SilentlyContinue |
        Where-Object { $_.LastWriteTimeUtc -ge $since } | Sort-Object FullName | ForEach-Object {
            $stream = [System.IO.File]::Open($_.FullName, 'Open', 'Read', 'ReadWrite')
            try {
                $offset = [Math]::Max([long]0, $stream.Length - $max)
                [void]$stream.Seek($offset, 'Begin')
                $buffer = New-Object byte[] ($stream.Length - $offset)
                $read = 0
                while ($read -lt $buffer.Length) {
                    $n = $stream.Read($buffer, $read, $buffer.Length - $read)
                    if ($n -le 0) { break }
                    $read += $n
                }
                [ordered]@{ Path = $_.FullName; Exists = $true; Length = $stream.Length; LastWriteTime = $_.LastWriteTimeUtc; Offset = $offset; ContentBase64 = [System.Convert]::ToBase64String($buffer, 0, $read) }
            } finally {
                $stream.Dispose()
            }
        }
}
ConvertTo-Json -InputObject @($rows) -Depth 3
exit 0
