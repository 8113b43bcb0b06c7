#!/usr/bin/env bash
# Regenerates assets/sample.mp4, the bundled clip: 1280x720, 25 fps, 8 s, H.264 yuv420p, tagged
# BT.709 limited range, about 1.3 MB. Moving gradients, Conway's life, a Mandelbrot zoom, FFmpeg's
# testsrc2 and scrolling text: flat areas, edges, fine detail and motion for the effects.
#   scripts/make-sample.sh [OUTPUT]
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$top/assets/sample.mp4}
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
bold=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -f "$bold" ] && [ -f "$font" ]; then
  text="drawtext=fontfile=$bold:text='vfx':fontsize=96:fontcolor=white:borderw=4:bordercolor=0x1b1b3a:x='mod(t*160\,W+tw)-tw':y='H-th-24',
drawtext=fontfile=$font:text='real-time video effects  %{pts\:hms}':fontsize=36:fontcolor=0xf4f1de:box=1:boxcolor=0x00000080:boxborderw=10:x=24:y=24,"
else
  text=""  # no font: the same clip without the text
fi

cat >"$work/graph.txt" <<GRAPH
gradients=s=1280x720:r=25:d=8:c0=0x0b1d51:c1=0x1f7a8c:c2=0xbfdbf7:c3=0xe07a5f:c4=0x3d405b:nb_colors=5:speed=0.015:seed=7[bg];
life=s=128x72:r=25:mold=8:ratio=0.35:seed=3:life_color=0xf2cc8f:death_color=0x202040:mold_color=0x81b29a,scale=448x252:flags=neighbor,format=yuv420p[life];
mandelbrot=s=448x252:r=25:maxiter=160:start_x=-0.743643887037151:start_y=0.131825904205330:start_scale=3:end_scale=0.02:end_pts=200:outer=normalized_iteration_count,gblur=sigma=0.7,format=yuv420p[mandel];
testsrc2=s=320x180:r=25,format=yuv420p[ts];
[bg][life]overlay=x='64+40*sin(t*0.9)':y=100:shortest=1[a];
[a][mandel]overlay=x='W-w-64':y='100+20*sin(t*1.3)'[b];
[b][ts]overlay=x='(W-w)/2+380*cos(t*0.7)':y='400+20*sin(t*1.7)'[c];
[c]${text}scale=out_color_matrix=bt709:out_range=tv,format=yuv420p
GRAPH

common=(-filter_complex_script "$work/graph.txt" -t 8 -an -c:v libx264 -preset slow -b:v 1250k
  -maxrate 2500k -bufsize 2500k -g 50 -pix_fmt yuv420p -colorspace bt709 -color_primaries bt709
  -color_trc bt709 -color_range tv -passlogfile "$work/pass")
ffmpeg -nostdin -v error -y "${common[@]}" -pass 1 -f null /dev/null
ffmpeg -nostdin -v error -y "${common[@]}" -pass 2 -movflags +faststart "$work/sample.mp4"
mv "$work/sample.mp4" "$out"
ls -l "$out"
