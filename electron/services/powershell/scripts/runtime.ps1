# windeck-script: runtime v1
# Container runtime: containerd/docker version, CRI sandbox (pause) image, images with their OS build.
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

$containerd = $null
$svc = Get-CimInstance -ClassName Win32_Service -Filter "Name='containerd'" -ErrorAction SilentlyContinue
$exe = 'C:\Program Files\containerd\containerd.exe'
if ($null -ne $svc -and $svc.PathName -match '^"?([^"]+containerd\.exe)') { $exe = $Matches[1] }
$config = Join-Path (Split-Path $exe) 'config.toml'
$sandbox = $null
if (Test-Path -LiteralPath $exe) {
    $version = (& $exe --version 2>&1 | Select-Object -First 1) -join ''
    $containerd = [ordered]@{ Path = $exe; VersionOutput = $version; ConfigPath = $config }
    if (Test-Path -LiteralPath $config) {
        $line = Select-String -LiteralPath $config -Pattern '^\s*sandbox_image\s*=\s*"([^"]+)"' | Select-Object -First 1
        if ($line) { $sandbox = $line.Matches[0].Groups[1].Value }
    }
}
$docker = $null
if (Get-Command docker.exe -ErrorAction SilentlyContinue) {
    $v = (& docker.exe version --format '{{.Server.Version}} {{.Server.APIVersion}}' 2>$null) -split ' '
    if ($v.Count -ge 2) { $docker = [ordered]@{ Version = $v[0]; ApiVersion = $v[1] } }
}
$images = @()
$crictl = Get-Command crictl.exe -ErrorAction SilentlyContinue
if ($crictl) {
    $list = (& $crictl.Source images -o json 2>$null | Out-String | ConvertFrom-Json).images
    $images = @(foreach ($img in $list) {
        $info = (& $crictl.Source inspecti -o json $img.id 2>$null | Out-String | ConvertFrom-Json)
        [ordered]@{ Ref = @($img.repoTags)[0]; Id = $img.id; SizeBytes = [long]$img.size; OsVersion = $info.info.imageSpec.'os.version' }
    })
}
ConvertTo-Json -Depth 4 -InputObject ([ordered]@{ Containerd = $containerd; Docker = $docker; SandboxImage = $sandbox; Images = $images })
exit 0
