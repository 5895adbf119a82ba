# LAME (Debian's lame 3.100, /usr/bin/lame, single-threaded) encoding generated audio to
# MP3, a new lame process per unit, the WAV piped to it by the driver (a cut of a long
# stereo 44.1 kHz recording that FFmpeg's lavfi synthesises from the seed before the
# runs: pink noise of the seed mixed with two slowly modulated tones).
#   mode=cbr320: unit i encodes the i-th distinct 6-second cut at 320 kbit/s with the
#     slowest, best quality search (-q 0): the same amount of audio per unit through the
#     same encoder, so the cost per unit should stay about constant (a control).
#   mode=vbr0: unit i encodes the first 4 x i seconds with the VBR quality 0 (-V 0 -q 0):
#     each unit encodes 4 seconds more than the last, so the cost grows linearly with i.
corpus_apt_lame=(lame ffmpeg)

run_lame() {
    cat >"$DRIVERS/lame_cuts.py" <<'EOF'
"""LAME (Debian's lame) encoding one cut of the seed's WAV per unit to MP3: `cbr320` the
i-th distinct SECONDS-long cut at -b 320 -q 0, `vbr0` the first i x SECONDS seconds at
-V 0 -q 0. The driver cuts the WAV (standard library `wave`) and pipes it to lame's
standard input; the MP3's size is printed with the unit. On the TERM that ends a probe
at K units it exits through `subprocess.run`, which ends and reaps the lame it started
(in the same process group, it gets the TERM too). argv: mode seconds units wav workdir."""
import io, os, signal, subprocess, sys, wave

# A probe stopped at its K units gets TERM: exit at once, through subprocess.run.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

mode, seconds, units, src, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
os.makedirs(work, exist_ok=True)
inp = wave.open(src, "rb")
rate = inp.getframerate()
out = os.path.join(work, "out.mp3")
for i in range(1, units + 1):
    if mode == "cbr320":
        inp.setpos((i - 1) * seconds * rate)
        frames, opts = inp.readframes(seconds * rate), ["-b", "320", "-q", "0"]
    else:
        inp.setpos(0)
        frames, opts = inp.readframes(i * seconds * rate), ["-V", "0", "-q", "0"]
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setparams(inp.getparams())
        w.writeframes(frames)
    subprocess.run(["/usr/bin/lame", "--quiet", *opts, "-", out], input=buf.getvalue(), check=True)
    print(f"mp3 {i} {mode} seconds {len(frames) // (4 * rate)} bytes {os.path.getsize(out)}", flush=True)
EOF

    local v seed
    v=$(/usr/bin/lame --version | head -1 | sed 's/^LAME 64bits version \([0-9.]*\) .*/LAME \1/')
    for seed in 1 2 3 4 5 6 7; do
        /usr/bin/ffmpeg -hide_banner -nostdin -loglevel error -filter_threads 1 -filter_complex \
            "anoisesrc=d=120:c=pink:r=44100:a=0.3:seed=$seed,pan=stereo|c0=c0|c1=c0[n];aevalsrc=0.3*sin(2*PI*(220+30*$seed)*t)*(0.6+0.4*sin(2*PI*0.7*t))|0.3*sin(2*PI*(500+20*$seed)*t+1)*(0.6+0.4*cos(2*PI*0.3*t)):s=44100:d=120[t];[t][n]amix=inputs=2" \
            -c:a pcm_s16le -y "$INPUTS/lame-$seed.wav"
    done
    record lame "audio encoding (MP3)" "$v" "apt:lame" \
        "constant (control): one distinct 6-second stereo cut encoded at 320 kbit/s, -q 0, per unit" \
        "mode=cbr320,seconds=6" '^mp3 \d+ cbr320 ' 4 20 natural -- \
        "$PY" "$DRIVERS/lame_cuts.py" cbr320 6 @N@ "$INPUTS/lame-{rep}.wav" "$INPUTS/lame-cbr-{rep}"
    record lame "audio encoding (MP3)" "$v" "apt:lame" \
        "grows: unit i encodes anew the first 4 x i seconds (VBR -V 0 -q 0): linear in i" \
        "mode=vbr0,seconds=4" '^mp3 \d+ vbr0 ' 2 20 natural -- \
        "$PY" "$DRIVERS/lame_cuts.py" vbr0 4 @N@ "$INPUTS/lame-{rep}.wav" "$INPUTS/lame-vbr-{rep}"
    rm -f "$INPUTS"/lame-?.wav
}
