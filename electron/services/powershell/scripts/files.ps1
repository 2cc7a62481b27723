# windeck-script: files v1
# The bytes (base64, tail-capped) of the given files: CNI config, subnet.env, SourceVip files, kubelet/kube-proxy configs.
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

# Bytes travel as base64 so BOMs, UTF-16 and CRLF arrive exactly as they are on disk.
$max = [long]$A.maxBytes
$rows = foreach ($path in @($A.paths)) {
    $item = Get-Item -LiteralPath $path -Force -ErrorAction SilentlyContinue
    if ($null -eq $item -or $item.PSIsContainer) {
        [ordered]@{ Path = $path; Exists = $false; Length = 0; LastWriteTime = $null; Offset = 0; ContentBase64 = $null }
        continue
    }
    $stream = [System.IO.File]::Open($item.FullName, 'Open', 'Read', 'ReadWrite')
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
        [ordered]@{ Path = $item.FullName; Exists = $true; Length = $stream.Length; LastWriteTime = $item.LastWriteTimeUtc; Offset = $offset; ContentBase64 = [System.Convert]::ToBase64String($buffer, 0, $read) }
    } finally {
        $stream.Dispose()
    }
}
ConvertTo-Json -InputObject @($rows) -Depth 3
exit 0
