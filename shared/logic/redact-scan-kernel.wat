;; The hot loops of redact.ts' scanText as a WebAssembly kernel (issue 10 item 6: a bundle reads every byte of
;; every log once). Compiled by `node build/wasm.mjs` (wabt) into redact-scan-kernel.ts, which is committed;
;; test/unit/shared/logic/redact-scan-kernel.test.ts checks the committed bytes against this source. Uses
;; WebAssembly SIMD (v128; Node 20, Electron and Chromium have it): where it is missing the module does not
;; compile and redact-scan-wasm.ts scans in JavaScript.
;;
;; The text is Latin-1: one byte per character (char code = byte), so offsets are the string's. Memory layout
;; (filled by redact-scan-wasm.ts, but for the constants of the data segment below):
;;   [0, 256)       fold table: the lower-case ASCII code of each character, 0 for none (redact-scan.ts foldTable)
;;   [256, 512)     base64 bits per character (read inline: `load8_u offset=256`) (1 alphabet digit/+/ , 2 upper-case, 4 lower-case; 0 otherwise)
;;   [512, 640)     `words`' slot sets: the non-zero slots of the starts union by their top 4 bits (16 buckets), in
;;                  8 rounds of 16 bytes: round r, byte b = the low 8 bits of the r-th non-zero slot of bucket b
;;                  (its first again when the bucket has fewer; 0 when it has none)
;;   [640, 656)     255 where bucket b has a non-zero slot, else 0
;;   [768, 864)     constants of `words` (data segment)
;;   [896, 960)     `words`' scratch: the 16 keys of the current block (i32), stored when it has a hit
;;   [960, 964)     written by `words` and `wordsScalar` (i32): 1 when text[from, n) holds a NUL byte, else 0 (found
;;                  in the same pass: the byte path hands such a text to the string path; not written on -1)
;;   [1024, 5120)   starts union: non-zero where a trigger word or a companion word may start (per slotOf slot)
;;   [8192, 24576)  exact keys (i32 per slotOf slot, read only where the starts union is non-zero): the one
;;                  three-character key the words starting in that slot start with, or -1 (any key: several keys
;;                  share the slot). An offset is reported only when its key is its slot's exact key (or -1): a
;;                  hash collision (a key of no word that lands on a word's slot) cannot start any word.
;;   [24576, 90112) the next two characters (16 bytes per slotOf slot, read only for an offset whose key has a
;;                  non-zero slot): the folded fourth and fifth characters of the words starting in that slot, as up
;;                  to four i16 lanes (fourth | fifth << 8; repeated to fill the four), then a mask per lane (0xffff;
;;                  0x00ff where the word has four characters; 0 in every lane: any, a word of three characters or
;;                  more than four pairs). An offset whose next two characters match no lane (under its mask; a
;;                  character past the text's end is 0, which no word has) cannot start any word: not reported.
;;   [90112, ...)   the text, then the output arrays (i32)
;; The functions return the number of items written, or -1 when `cap` is too small (the caller scans in JS).
(module
  (memory (export "memory") 1)
  ;; `words`' constants: 63, -102 and 32 (bytes, for folding), 1 and 16384 (i16 pairs, for the key), the golden
  ;; ratio multiplier of slotOf (i32), 255 (i16).
  (data (i32.const 768)
    "\3f\3f\3f\3f\3f\3f\3f\3f\3f\3f\3f\3f\3f\3f\3f\3f"
    "\9a\9a\9a\9a\9a\9a\9a\9a\9a\9a\9a\9a\9a\9a\9a\9a"
    "\20\20\20\20\20\20\20\20\20\20\20\20\20\20\20\20"
    "\01\00\00\40\01\00\00\40\01\00\00\40\01\00\00\40"
    "\b1\79\37\9e\b1\79\37\9e\b1\79\37\9e\b1\79\37\9e"
    "\ff\00\ff\00\ff\00\ff\00\ff\00\ff\00\ff\00\ff\00")

  ;; Offsets i in [from, n) where the rolling three-character key (7 bits per folded character, started at 0 at
  ;; `from`) has a non-zero starts-union slot and is that slot's exact key (or the slot's exact key is -1), and the
  ;; next two characters are those of a word of the slot (`$next2`): scanText's hot loop without its hash
  ;; collisions and most near misses of the words (`network`, `Subnet added` for `net use`), one character at a
  ;; time. The reference of `words`, and what
  ;; redact-scan-wasm.ts runs when the slot sets do not fit [512, 656).
  (func $wordsScalar (export "wordsScalar") (param $text i32) (param $from i32) (param $n i32) (param $out i32) (param $cap i32) (result i32)
    (call $tail (local.get $text) (i32.add (local.get $text) (local.get $from)) (i32.add (local.get $text) (local.get $n))
      (local.get $out) (local.get $cap) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))

  ;; The character loop of `wordsScalar` from address $p to $end, the key's first two characters given
  ;; ($a: folded code << 14, $b: << 7), `count` offsets already written, $nul: a NUL byte was seen before $p.
  ;; Writes the NUL flag at 960 (see the layout).
  (func $tail (param $text i32) (param $p i32) (param $end i32) (param $out i32) (param $cap i32) (param $a i32) (param $b i32) (param $count i32) (param $nul i32) (result i32)
    (local $raw i32)
    (local $c i32)
    (local $key i32)
    (local $slot i32)
    (local $want i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $raw (i32.load8_u (local.get $p)))
        (local.set $nul (i32.or (local.get $nul) (i32.eqz (local.get $raw))))
        (local.set $c (i32.load8_u offset=0 (local.get $raw)))
        (local.set $key (i32.or (i32.or (local.get $a) (local.get $b)) (local.get $c)))
        (local.set $a (i32.shl (local.get $b) (i32.const 7)))
        (local.set $b (i32.shl (local.get $c) (i32.const 7)))
        (local.set $slot (i32.shr_u (i32.mul (local.get $key) (i32.const 0x9e3779b1)) (i32.const 20)))
        (if (i32.load8_u offset=1024 (local.get $slot))
          (then
            (local.set $want (i32.load offset=8192 (i32.shl (local.get $slot) (i32.const 2))))
            (if (i32.and
                  (i32.or (i32.eq (local.get $want) (local.get $key)) (i32.eq (local.get $want) (i32.const -1)))
                  (call $next2 (local.get $slot) (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
              (then
                (if (i32.ge_u (local.get $count) (local.get $cap)) (then (return (i32.const -1))))
                (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (i32.sub (local.get $p) (local.get $text)))
                (local.set $count (i32.add (local.get $count) (i32.const 1)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (i32.store offset=960 (i32.const 0) (local.get $nul))
    (local.get $count))

  ;; Whether the two characters at address $q (0 at $end and after) may be the fourth and fifth of a word of `slot`:
  ;; some i16 lane of (lanes ^ pair) & mask is zero (see the layout; a zero lane by the usual bit trick). `words`
  ;; has the same code inline (a call there costs more: the block's vectors live across it).
  (func $next2 (param $slot i32) (param $q i32) (param $end i32) (result i32)
    (local $last i32)
    (local $x i64)
    (local.set $last (i32.sub (local.get $end) (i32.const 1)))
    (local.set $x
      (i64.and
        (i64.xor
          (i64.load offset=24576 (i32.shl (local.get $slot) (i32.const 4)))
          (i64.mul
            (i64.extend_i32_u
              (i32.or
                (select
                  (i32.load8_u offset=0 (i32.load8_u (select (local.get $q) (local.get $last) (i32.lt_u (local.get $q) (local.get $end)))))
                  (i32.const 0)
                  (i32.lt_u (local.get $q) (local.get $end)))
                (i32.shl
                  (select
                    (i32.load8_u offset=0
                      (i32.load8_u (select (i32.add (local.get $q) (i32.const 1)) (local.get $last) (i32.lt_u (i32.add (local.get $q) (i32.const 1)) (local.get $end)))))
                    (i32.const 0)
                    (i32.lt_u (i32.add (local.get $q) (i32.const 1)) (local.get $end)))
                  (i32.const 8))))
            (i64.const 0x0001000100010001)))
        (i64.load offset=24584 (i32.shl (local.get $slot) (i32.const 4)))))
    (i64.ne
      (i64.and
        (i64.and (i64.sub (local.get $x) (i64.const 0x0001000100010001)) (i64.xor (local.get $x) (i64.const -1)))
        (i64.const 0x8000800080008000))
      (i64.const 0)))

  ;; `wordsScalar`, 16 characters at a time (the same offsets): the keys' slots by SIMD arithmetic (no loop-carried
  ;; dependency), and whether each is non-zero by looking it up in the slot sets with swizzles (no table load per
  ;; character); only the offsets found are then checked against their slot's exact key (the block's keys stored to
  ;; the scratch) and next two characters (as `$next2`, inline), and written one at a time. The last (n - from) mod 16 characters go through `$tail`. NUL bytes:
  ;; the bytewise minimum of every block ($low: a lane is 0 when that lane of some block was).
  (func (export "words") (param $text i32) (param $from i32) (param $n i32) (param $out i32) (param $cap i32) (result i32)
    (local $p i32)
    (local $end i32)
    (local $count i32)
    (local $mask i32)
    (local $at i32)
    (local $j i32)
    (local $key i32)
    (local $want i32)
    (local $slot i32)
    (local $q i32)
    (local $last i32)
    (local $ok i32)
    (local $x64 i64)
    (local $x v128)
    (local $f v128)
    (local $f2 v128)
    (local $prev v128)
    (local $prev2 v128)
    (local $b v128)
    (local $a2 v128)
    (local $lo v128)
    (local $hi v128)
    (local $wlo v128)
    (local $whi v128)
    (local $k0 v128)
    (local $k1 v128)
    (local $k2 v128)
    (local $k3 v128)
    (local $s0 v128)
    (local $s1 v128)
    (local $low8 v128)
    (local $bucket v128)
    (local $hit v128)
    (local $k63 v128)
    (local $km102 v128)
    (local $k32 v128)
    (local $weights v128)
    (local $golden v128)
    (local $kff v128)
    (local $low v128)
    ;; Loaded, not v128.const: the compiler keeps them in registers instead of building them in every iteration.
    (local.set $k63 (v128.load offset=768 (i32.const 0)))
    (local.set $km102 (v128.load offset=784 (i32.const 0)))
    (local.set $k32 (v128.load offset=800 (i32.const 0)))
    (local.set $weights (v128.load offset=816 (i32.const 0)))
    (local.set $golden (v128.load offset=832 (i32.const 0)))
    (local.set $kff (v128.load offset=848 (i32.const 0)))
    (local.set $low (v128.const i32x4 -1 -1 -1 -1))
    (local.set $p (i32.add (local.get $text) (local.get $from)))
    (local.set $end (i32.add (local.get $text) (local.get $n)))
    (local.set $last (i32.sub (local.get $end) (i32.const 1)))
    ;; $prev / $prev2: the previous block's folded characters (once and twice their code); zeros before `from`.
    (block $blocks_done
      (loop $block
        (br_if $blocks_done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $x (v128.load (local.get $p)))
        (local.set $low (i8x16.min_u (local.get $low) (local.get $x)))
        ;; The fold table as arithmetic: A-Z +32, bytes over 127 0 (redact-scan-kernel.test.ts checks all 256).
        ;; x + 63 < -102 (signed) exactly for x in 65..90.
        (local.set $f
          (v128.andnot
            (v128.or (local.get $x)
              (v128.and (i8x16.lt_s (i8x16.add (local.get $x) (local.get $k63)) (local.get $km102)) (local.get $k32)))
            (i8x16.lt_s (local.get $x) (v128.const i32x4 0 0 0 0))))
        (local.set $f2 (i8x16.add (local.get $f) (local.get $f)))
        ;; Per character j: b = the fold of j - 1, a2 = twice the fold of j - 2 (from the previous block).
        (local.set $b (i8x16.shuffle 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 (local.get $prev) (local.get $f)))
        (local.set $a2 (i8x16.shuffle 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 (local.get $prev2) (local.get $f2)))
        ;; i16 lanes 2c + 256b (characters 0-7, 8-15), then i32 lanes [2c + 256b, 2a]: dot with [1, 16384] = 2 * key.
        (local.set $lo (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $f2) (local.get $b)))
        (local.set $hi (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $f2) (local.get $b)))
        (local.set $wlo (i16x8.extend_low_i8x16_u (local.get $a2)))
        (local.set $whi (i16x8.extend_high_i8x16_u (local.get $a2)))
        ;; The keys (i32 lanes): characters 0-3, 4-7, 8-11, 12-15.
        (local.set $k0 (i32x4.shr_u (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $lo) (local.get $wlo)) (local.get $weights)) (i32.const 1)))
        (local.set $k1 (i32x4.shr_u (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $lo) (local.get $wlo)) (local.get $weights)) (i32.const 1)))
        (local.set $k2 (i32x4.shr_u (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $hi) (local.get $whi)) (local.get $weights)) (i32.const 1)))
        (local.set $k3 (i32x4.shr_u (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $hi) (local.get $whi)) (local.get $weights)) (i32.const 1)))
        ;; slotOf(key) = key * 0x9e3779b1 >>> 20, as i16 lanes: characters 0-7, 8-15.
        (local.set $s0
          (i16x8.narrow_i32x4_u
            (i32x4.shr_u (i32x4.mul (local.get $k0) (local.get $golden)) (i32.const 20))
            (i32x4.shr_u (i32x4.mul (local.get $k1) (local.get $golden)) (i32.const 20))))
        (local.set $s1
          (i16x8.narrow_i32x4_u
            (i32x4.shr_u (i32x4.mul (local.get $k2) (local.get $golden)) (i32.const 20))
            (i32x4.shr_u (i32x4.mul (local.get $k3) (local.get $golden)) (i32.const 20))))
        ;; Bytes: the slot's low 8 bits, its top 4 bits (the bucket).
        (local.set $low8 (i8x16.narrow_i16x8_u (v128.and (local.get $s0) (local.get $kff)) (v128.and (local.get $s1) (local.get $kff))))
        (local.set $bucket (i8x16.narrow_i16x8_u (i16x8.shr_u (local.get $s0) (i32.const 8)) (i16x8.shr_u (local.get $s1) (i32.const 8))))
        ;; A slot is non-zero when its low 8 bits equal its bucket's byte in some round, and the bucket has any.
        (local.set $hit (i8x16.eq (i8x16.swizzle (v128.load offset=512 (i32.const 0)) (local.get $bucket)) (local.get $low8)))
        (local.set $hit (v128.or (local.get $hit) (i8x16.eq (i8x16.swizzle (v128.load offset=528 (i32.const 0)) (local.get $bucket)) (local.get $low8))))
        (local.set $hit (v128.or (local.get $hit) (i8x16.eq (i8x16.swizzle (v128.load offset=544 (i32.const 0)) (local.get $bucket)) (local.get $low8))))
        (local.set $hit (v128.or (local.get $hit) (i8x16.eq (i8x16.swizzle (v128.load offset=560 (i32.const 0)) (local.get $bucket)) (local.get $low8))))
        (local.set $hit (v128.or (local.get $hit) (i8x16.eq (i8x16.swizzle (v128.load offset=576 (i32.const 0)) (local.get $bucket)) (local.get $low8))))
        (local.set $hit (v128.or (local.get $hit) (i8x16.eq (i8x16.swizzle (v128.load offset=592 (i32.const 0)) (local.get $bucket)) (local.get $low8))))
        (local.set $hit (v128.or (local.get $hit) (i8x16.eq (i8x16.swizzle (v128.load offset=608 (i32.const 0)) (local.get $bucket)) (local.get $low8))))
        (local.set $hit (v128.or (local.get $hit) (i8x16.eq (i8x16.swizzle (v128.load offset=624 (i32.const 0)) (local.get $bucket)) (local.get $low8))))
        (local.set $mask (i8x16.bitmask (v128.and (local.get $hit) (i8x16.swizzle (v128.load offset=640 (i32.const 0)) (local.get $bucket)))))
        (if (local.get $mask)
          (then
            (local.set $at (i32.sub (local.get $p) (local.get $text)))
            (v128.store offset=896 (i32.const 0) (local.get $k0))
            (v128.store offset=912 (i32.const 0) (local.get $k1))
            (v128.store offset=928 (i32.const 0) (local.get $k2))
            (v128.store offset=944 (i32.const 0) (local.get $k3))
            (loop $each
              (local.set $j (i32.ctz (local.get $mask)))
              (local.set $key (i32.load offset=896 (i32.shl (local.get $j) (i32.const 2))))
              (local.set $slot (i32.shr_u (i32.mul (local.get $key) (i32.const 0x9e3779b1)) (i32.const 20)))
              (local.set $want (i32.load offset=8192 (i32.shl (local.get $slot) (i32.const 2))))
              (if (i32.or (i32.eq (local.get $want) (local.get $key)) (i32.eq (local.get $want) (i32.const -1)))
                (then
                  (if (block (result i32)
                      (local.set $q (i32.add (i32.add (local.get $p) (local.get $j)) (i32.const 1)))
                      (local.set $x64
                        (i64.and
                          (i64.xor
                            (i64.load offset=24576 (i32.shl (local.get $slot) (i32.const 4)))
                            (i64.mul
                              (i64.extend_i32_u
                                (i32.or
                                  (select
                                    (i32.load8_u offset=0 (i32.load8_u (select (local.get $q) (local.get $last) (i32.lt_u (local.get $q) (local.get $end)))))
                                    (i32.const 0)
                                    (i32.lt_u (local.get $q) (local.get $end)))
                                  (i32.shl
                                    (select
                                      (i32.load8_u offset=0
                                        (i32.load8_u (select (i32.add (local.get $q) (i32.const 1)) (local.get $last) (i32.lt_u (i32.add (local.get $q) (i32.const 1)) (local.get $end)))))
                                      (i32.const 0)
                                      (i32.lt_u (i32.add (local.get $q) (i32.const 1)) (local.get $end)))
                                    (i32.const 8))))
                              (i64.const 0x0001000100010001)))
                          (i64.load offset=24584 (i32.shl (local.get $slot) (i32.const 4)))))
                      (i64.ne
                        (i64.and
                          (i64.and (i64.sub (local.get $x64) (i64.const 0x0001000100010001)) (i64.xor (local.get $x64) (i64.const -1)))
                          (i64.const 0x8000800080008000))
                        (i64.const 0)))
                    (then
                      (if (i32.ge_u (local.get $count) (local.get $cap)) (then (return (i32.const -1))))
                      (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (i32.add (local.get $at) (local.get $j)))
                      (local.set $count (i32.add (local.get $count) (i32.const 1)))))))
              (br_if $each (local.tee $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))))))
        (local.set $prev (local.get $f))
        (local.set $prev2 (local.get $f2))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $block)))
    (call $tail (local.get $text) (local.get $p) (local.get $end) (local.get $out) (local.get $cap)
      (i32.shl (i8x16.extract_lane_u 14 (local.get $prev)) (i32.const 14))
      (i32.shl (i8x16.extract_lane_u 15 (local.get $prev)) (i32.const 7))
      (local.get $count)
      (i32.eqz (i8x16.all_true (local.get $low)))))

  ;; How many bytes of text[from, to) are `byte` (redact.ts counts a chunk's line breaks so): 16 at a time, the
  ;; block's matches summed in a vector of byte counters emptied every 255 blocks (before they can overflow).
  (func (export "count") (param $text i32) (param $from i32) (param $to i32) (param $byte i32) (result i32)
    (local $p i32)
    (local $end i32)
    (local $stop i32)
    (local $count i32)
    (local $needle v128)
    (local $acc v128)
    (local.set $p (i32.add (local.get $text) (local.get $from)))
    (local.set $end (i32.add (local.get $text) (local.get $to)))
    (local.set $needle (i8x16.splat (local.get $byte)))
    (block $blocks_done
      (loop $round
        (br_if $blocks_done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        ;; Up to 255 blocks into the byte counters (a match is -1: subtracted).
        (local.set $stop (i32.add (local.get $p) (i32.const 4080)))
        (if (i32.gt_u (local.get $stop) (local.get $end)) (then (local.set $stop (local.get $end))))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (loop $block
          (local.set $acc (i8x16.sub (local.get $acc) (i8x16.eq (v128.load (local.get $p)) (local.get $needle))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (br_if $block (i32.le_u (i32.add (local.get $p) (i32.const 16)) (local.get $stop))))
        (local.set $acc (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc))))
        (local.set $count
          (i32.add (local.get $count)
            (i32.add
              (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
              (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc))))))
        (br $round)))
    (block $done
      (loop $byte
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $count (i32.add (local.get $count) (i32.eq (i32.load8_u (local.get $p)) (local.get $byte))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $byte)))
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
