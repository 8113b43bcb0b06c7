#!/usr/bin/env bash
# The same frames on every device: `vfx process` runs every filter (and a few parameter
# extremes) over the same noise images and prints one checksum per output. Run it here (PoCL) and
# on the GPU machine (NVIDIA) and compare the two lists: a difference is a pixel that depends on
# the device. Inputs: odd-sized noise, RGB and one-channel (a mosaic) at 8 and 16 bits, made with
# ffmpeg where it exists (make them here and carry .media to the GPU machine):
#   bash scripts/crossdevice-session.sh --make-inputs
#   [source .devpack/env.sh &&] [KEEP=DIR KEEP_MATCH=PATTERN] bash scripts/crossdevice-session.sh [VFX] > sums.txt
set -uo pipefail
media=.media
if [ "${1:-}" = "--make-inputs" ]; then
  mkdir -p "$media"
  ffmpeg -v error -y -f lavfi -i "nullsrc=s=333x217,geq=r='random(1)*255':g='random(2)*255':b='random(3)*255'" \
    -frames:v 1 -pix_fmt rgb24 "$media/xdev-rgb.png"
  ffmpeg -v error -y -f lavfi -i "nullsrc=s=333x217,geq=r='random(1)*65535':g='random(2)*65535':b='random(3)*65535'" \
    -frames:v 1 -pix_fmt rgb48be "$media/xdev-rgb16.png"
  ffmpeg -v error -y -f lavfi -i "nullsrc=s=333x217,geq=lum='random(1)*255':cb=128:cr=128" \
    -frames:v 1 -pix_fmt gray "$media/xdev-gray.png"
  ffmpeg -v error -y -f lavfi -i "nullsrc=s=333x217,geq=lum='random(1)*65535':cb=32768:cr=32768" \
    -frames:v 1 -pix_fmt gray16be "$media/xdev-gray16.png"
  exit 0
fi
vfx=${1:-.devpack/bin/vfx}
out=$(mktemp -d)
colour=(
  "bilateral" "bilateral=sigma_s=4:sigma_r=0.3" "blacklevel=black=16:white=235" "blend=mode=screen:opacity=0.7"
  "box=radius=1" "box=radius=5" "box=radius=9" "ccm=matrix=1.2|-0.1|-0.1|-0.05|1.1|-0.05|0|-0.2|1.2"
  "color=brightness=0.1:contrast=1.3:saturation=1.4:hue=25" "gamma" "gamma=curve=srgb"
  "gaussian" "gaussian=sigma=2" "gaussian=sigma=0.3" "gaussian=sigma=4" "gaussian=sigma=12"
  "grayscale" "histogram" "median=radius=1" "median=radius=2" "mosaic" "oilpaint"
  "oilpaint=radius=4:levels=16" "sepia" "sharpen" "sharpen=amount=3" "sobel" "unsharp"
  "unsharp=sigma=1:amount=0.5" "unsharp=sigma=3:amount=5" "wb=r=1.8:g=1:b=1.4"
  "color=saturation=1.3:hue=10,gamma=curve=srgb,ccm=matrix=1.2|-0.1|-0.1|-0.05|1.1|-0.05|0|-0.2|1.2,sepia"
  "median=radius=1,unsharp=sigma=1:amount=0.5,histogram")
mosaic=("demosaic" "demosaic=method=bilinear" "demosaic=pattern=gbrg" "demosaic=method=mhc:pattern=grbg"
  "blacklevel=black=64:white=4000,demosaic" "gamma,demosaic=method=bilinear:pattern=bggr")
run() {  # input, chain
  local name
  name=$(printf '%s_%s' "$(basename "$1" .png)" "$2" | tr -c 'A-Za-z0-9._=-' '_')
  if "$vfx" process --log-level error --input "$1" --chain "$2" -o "$out/$name.png" > "$out/log" 2>&1; then
    echo "$(md5sum < "$out/$name.png" | cut -c1-32)  $(basename "$1") $2"
    # KEEP=DIR: keep the outputs whose chain matches KEEP_MATCH (a grep pattern) in DIR.
    if [ -n "${KEEP:-}" ] && echo "$2" | grep -q -- "${KEEP_MATCH:-.}"; then
      mkdir -p "$KEEP" && cp "$out/$name.png" "$KEEP/"
    fi
  else
    echo "FAILED  $(basename "$1") $2: $(tail -1 "$out/log")"
  fi
}
for c in "${colour[@]}"; do for i in "$media/xdev-rgb.png" "$media/xdev-rgb16.png"; do run "$i" "$c"; done; done
for c in "${mosaic[@]}"; do for i in "$media/xdev-gray.png" "$media/xdev-gray16.png"; do run "$i" "$c"; done; done
rm -rf "$out"
