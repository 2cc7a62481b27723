;; The hot loops of redact.ts' scanText as a WebAssembly kernel (issue 10 item 6: a bundle reads every byte of
;; every log once). Compiled by `node build/wasm.mjs` (wabt) into redact-scan-kernel.ts, which is committed;
;; test/unit/shared/logic/redact-scan-kernel.test.ts checks the committed bytes against this source.
;;
;; The text is Latin-1: one byte per character (char code = byte), so offsets are the string's. Memory layout
;; (filled by redact-scan-wasm.ts):
;;   [0, 256)       fold table: the lower-case ASCII code of each character, 0 for none (redact-scan.ts foldTable)
;;   [256, 512)     base64 bits per character (read inline: `load8_u offset=256`) (1 alphabet digit/+/ , 2 upper-case, 4 lower-case; 0 otherwise)
;;   [1024, 5120)   starts union: non-zero where a trigger word or a companion word may start (per slotOf slot)
;;   [8192, ...)    the text, then the output arrays (i32)
;; Both functions return the number of items written, or -1 when `cap` is too small (the caller scans in JS).
(module
  (memory (export "memory") 1)

  ;; Offsets i in [from, n) where the rolling three-character key (7 bits per folded character, started at 0 at
  ;; `from`) has a non-zero starts-union slot: exactly scanText's hot loop.
  (func (export "words") (param $text i32) (param $from i32) (param $n i32) (param $out i32) (param $cap i32) (result i32)
    (local $i i32)
    (local $key i32)
    (local $count i32)
    (local.set $i (local.get $from))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $key
          (i32.and
            (i32.or
              (i32.shl (local.get $key) (i32.const 7))
              (i32.load8_u offset=0 (i32.load8_u (i32.add (local.get $text) (local.get $i)))))
            (i32.const 0x1fffff)))
        (if (i32.load8_u offset=1024 (i32.shr_u (i32.mul (local.get $key) (i32.const 0x9e3779b1)) (i32.const 20)))
          (then
            (if (i32.ge_u (local.get $count) (local.get $cap)) (then (return (i32.const -1))))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (local.get $i))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $count))

  ;; redact.ts keepRun: long enough, both letter cases, not too long, not inside a word (`-`/`_` neighbours).
  (func $keep (param $text i32) (param $n i32) (param $start i32) (param $end i32) (param $bits i32) (param $checkAfter i32) (result i32)
    (local $c i32)
    (if (i32.lt_s (i32.sub (local.get $end) (local.get $start)) (i32.const 20)) (then (return (i32.const 0))))
    (if (i32.ne (i32.and (local.get $bits) (i32.const 6)) (i32.const 6)) (then (return (i32.const 0))))
    (if (i32.gt_s (i32.sub (local.get $end) (local.get $start)) (i32.const 4194304)) (then (return (i32.const 0))))
    (local.set $c (i32.const 32))
    (if (i32.gt_s (local.get $start) (i32.const 0))
      (then (local.set $c (i32.load8_u (i32.add (local.get $text) (i32.sub (local.get $start) (i32.const 1)))))))
    (if (i32.or (i32.eq (local.get $c) (i32.const 45)) (i32.eq (local.get $c) (i32.const 95))) (then (return (i32.const 0))))
    (if (i32.eqz (local.get $checkAfter)) (then (return (i32.const 1))))
    (local.set $c (i32.const 32))
    (if (i32.lt_s (local.get $end) (local.get $n))
      (then (local.set $c (i32.load8_u (i32.add (local.get $text) (local.get $end))))))
    (i32.and (i32.ne (local.get $c) (i32.const 45)) (i32.ne (local.get $c) (i32.const 95))))

  ;; redact.ts base64Runs: pairs [start, end) written to `out`, probing every 18th character.
  (func (export "runs") (param $text i32) (param $from i32) (param $n i32) (param $out i32) (param $cap i32) (result i32)
    (local $p i32)
    (local $b i32)
    (local $k i32)
    (local $start i32)
    (local $last i32)
    (local $end i32)
    (local $stop i32)
    (local $count i32)
    (local $keep i32)
    (local $runEnd i32)
    (local.set $p (i32.add (local.get $from) (i32.const 17)))
    (block $done
      (loop $probe
        (br_if $done (i32.ge_s (local.get $p) (local.get $n)))
        (block $continue
          (local.set $b (i32.load8_u offset=256 (i32.load8_u (i32.add (local.get $text) (local.get $p)))))
          (if (i32.eqz (local.get $b))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 18)))
              (br $continue)))
          ;; Back to the word's start.
          (local.set $start (local.get $p))
          (block $back_done
            (loop $back
              (br_if $back_done (i32.le_s (local.get $start) (local.get $from)))
              (local.set $k (i32.load8_u offset=256 (i32.load8_u (i32.add (local.get $text) (i32.sub (local.get $start) (i32.const 1))))))
              (br_if $back_done (i32.eqz (local.get $k)))
              (local.set $b (i32.or (local.get $b) (local.get $k)))
              (local.set $start (i32.sub (local.get $start) (i32.const 1)))
              (br $back)))
          (local.set $last (i32.add (local.get $start) (i32.const 17)))
          (br_if $done (i32.ge_s (local.get $last) (local.get $n)))
          (if (i32.and
                (i32.gt_s (local.get $last) (local.get $p))
                (i32.eqz (i32.load8_u offset=256 (i32.load8_u (i32.add (local.get $text) (local.get $last))))))
            (then
              (local.set $p (i32.add (local.get $last) (i32.const 18)))
              (br $continue)))
          ;; Forward to the word's end.
          (local.set $end (i32.add (local.get $p) (i32.const 1)))
          (block $fwd_done
            (loop $fwd
              (br_if $fwd_done (i32.ge_s (local.get $end) (local.get $n)))
              (local.set $k (i32.load8_u offset=256 (i32.load8_u (i32.add (local.get $text) (local.get $end)))))
              (br_if $fwd_done (i32.eqz (local.get $k)))
              (local.set $b (i32.or (local.get $b) (local.get $k)))
              (local.set $end (i32.add (local.get $end) (i32.const 1)))
              (br $fwd)))
          (if (i32.ge_s (i32.sub (local.get $end) (local.get $start)) (i32.const 18))
            (then
              (local.set $keep (i32.const 0))
              (if (i32.lt_s (local.get $end) (local.get $n))
                (then
                  (local.set $stop (local.get $end))
                  (block $pad_done
                    (loop $pad
                      (br_if $pad_done (i32.ge_s (local.get $stop) (local.get $n)))
                      (br_if $pad_done (i32.ge_s (i32.sub (local.get $stop) (local.get $end)) (i32.const 2)))
                      (br_if $pad_done (i32.ne (i32.load8_u (i32.add (local.get $text) (local.get $stop))) (i32.const 61)))
                      (local.set $stop (i32.add (local.get $stop) (i32.const 1)))
                      (br $pad)))
                  (local.set $runEnd (local.get $stop))
                  (local.set $keep
                    (call $keep (local.get $text) (local.get $n) (local.get $start) (local.get $stop) (local.get $b) (i32.const 1))))
                (else
                  (local.set $runEnd (local.get $n))
                  (if (i32.ge_s (i32.sub (local.get $end) (local.get $start)) (i32.const 20))
                    (then
                      (local.set $keep
                        (call $keep (local.get $text) (local.get $n) (local.get $start) (local.get $n) (local.get $b) (i32.const 0)))))))
              (if (local.get $keep)
                (then
                  (if (i32.ge_u (local.get $count) (local.get $cap)) (then (return (i32.const -1))))
                  (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3))) (local.get $start))
                  (i32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3))) (local.get $runEnd))
                  (local.set $count (i32.add (local.get $count) (i32.const 1)))))))
          (local.set $p (i32.add (local.get $end) (i32.const 18))))
        (br $probe)))
    (local.get $count))
)
