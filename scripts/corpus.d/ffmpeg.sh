# FFmpeg (Debian's, /usr/bin/ffmpeg) encoding generated video with libx264 (preset
# medium, one thread everywhere: -threads 1, x264 threads=1 lookahead-threads=1,
# -filter_threads 1) into 1-second MP4 segments (FFmpeg's segment muxer, a keyframe
# every 25 frames at 25 fps); the muxer's segment list, written to standard output as
# each segment is closed, gives one line per segment: the unit. One ffmpeg process per
# run renders its source (lavfi) and encodes it, so each unit is 25 frames of FFmpeg's
# own generation and encoding.
#   source=life: Conway's life (lavfi `life`, random start of the seed, with mould), whose
#     pattern evolves from noise to sparse still lifes and gliders: the encoding cost per
#     segment changes as the picture does (it should fall as the board calms down).
#   source=mandelbrot: lavfi's Mandelbrot zoom towards a boundary point chosen by the
#     seed: the iterations per pixel rise as the zoom deepens into the set's boundary and
#     the detail the encoder has to code changes, so the cost per segment changes (likely
#     grows).
corpus_apt_ffmpeg=(ffmpeg)

run_ffmpeg() {
    cat >"$DRIVERS/ffmpeg_segments.sh" <<'EOF'
#!/bin/sh
# FFmpeg rendering a lavfi source and encoding it (libx264, one thread) into UNITS
# 1-second segments under WORKDIR; the segment list (one CSV line per closed segment)
# goes to standard output. argv: source size units seed workdir
src=$1 size=$2 units=$3 seed=$4 work=$5
mkdir -p "$work"
case $src in
life)
    input="life=s=$size:mold=10:rate=25:ratio=0.1:seed=$seed:death_color=#C83232:life_color=#00FF00" ;;
mandelbrot)
    # Seven boundary points of the Mandelbrot set, one per seed.
    set -- "-0.743643887037151 0.131825904205330" "-1.250660 0.020120" \
        "-0.101100 0.956300" "0.254900 0.000500" "-1.768778800 0.001738900" \
        "-0.160701350 1.037566500" "0.001643721971153 -0.822467633298876"
    shift $((seed - 1))
    x=${1% *} y=${1#* }
    input="mandelbrot=s=$size:rate=25:start_x=$x:start_y=$y:start_scale=3:end_scale=0.0005:end_pts=$((units * 25))" ;;
esac
exec ffmpeg -hide_banner -nostdin -loglevel error -filter_threads 1 -f lavfi -i "$input,format=yuv420p" \
    -t $units -c:v libx264 -preset medium -threads 1 \
    -x264-params threads=1:lookahead-threads=1 -g 25 -keyint_min 25 -sc_threshold 0 \
    -f segment -segment_time 1 -segment_list pipe:1 -segment_list_type csv -y "$work/seg%03d.mp4"
EOF
    chmod +x "$DRIVERS/ffmpeg_segments.sh"

    local v
    v=$(ffmpeg -version | head -1 | sed 's/^ffmpeg version \([^ ]*\) .*/FFmpeg \1/')
    v="$v (libx264 $(dpkg-query -W -f='${Version}' 'libx264-1*' | head -1))"
    record ffmpeg "video encoding (H.264)" "$v" "apt:ffmpeg" \
        "changes: 25 frames of Conway's life per unit, the encoding cost following the evolving pattern" \
        "size=320x180,source=life" '^seg\d+\.mp4,' 3 30 natural -- \
        "$DRIVERS/ffmpeg_segments.sh" life 320x180 @N@ '{rep}' "$INPUTS/ffmpeg-life-{rep}"
    record ffmpeg "video encoding (H.264)" "$v" "apt:ffmpeg" \
        "changes, likely grows: 25 frames of a deepening Mandelbrot zoom per unit (more iterations per pixel, changing detail to encode)" \
        "size=320x180,source=mandelbrot" '^seg\d+\.mp4,' 10 20 natural -- \
        "$DRIVERS/ffmpeg_segments.sh" mandelbrot 320x180 @N@ '{rep}' "$INPUTS/ffmpeg-mandelbrot-{rep}"
}
