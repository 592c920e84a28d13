#!/usr/bin/env bash
# Regenerates the committed test images of SwitchboardThumbnailsTests (and the fuzz
# seeds of Fuzz/seeds/FuzzThumbnail) with the vips command line and exiftool:
#
#   Tests/SwitchboardThumbnailsTests/Fixtures/make-fixtures.sh
#
# Needs libvips-tools and libimage-exiftool-perl (installed if missing). The images
# are synthetic gradients, small enough to commit; the bombs and broken files are
# made by the tests themselves.
set -euo pipefail
. "$(dirname "$0")/../../../scripts/lib/common.sh"
SB_LOG_TAG=fixtures
ensure_packages libvips-tools libimage-exiftool-perl
here=$(cd "$(dirname "$0")" && pwd)
seeds=$SB_ROOT/Fuzz/seeds/FuzzThumbnail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# gradient W H NAME: a three-band 8-bit picture (x, y, and a slow wave) as NAME.v
gradient() {
  vips xyz xy.v "$1" "$2"
  vips linear xy.v scaled.v "$((255 * 1000 / $1))e-3 $((255 * 1000 / $2))e-3" "0 0"
  vips sines wave.v "$1" "$2" --hfreq 2 --vfreq 1
  vips linear wave.v wave8.v 120 128
  vips bandjoin "scaled.v wave8.v" joined.v
  vips cast joined.v "$3.v" uchar
}

# A photo with the metadata a phone writes, GPS position included.
gradient 1200 800 photo
vips jpegsave photo.v photo-gps.jpg --Q 85 --strip
exiftool -q -overwrite_original -Make=Switchboard -Model="Test Camera" -DateTimeOriginal="2024:05:01 12:00:00" \
  -Artist="Ada Lovelace" -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E \
  -GPSAltitude=35 -XMP:GPSLatitude=48.8584 -XMP:GPSLongitude=2.2945 -Comment="taken at home" photo-gps.jpg
# The same picture stored sideways: EXIF orientation 6 (turn 90 degrees clockwise to show).
cp photo-gps.jpg rotated.jpg
exiftool -q -overwrite_original -n -Orientation=6 rotated.jpg

# PNG with a varying alpha channel.
gradient 800 600 rgb
vips extract_band rgb.v alpha.v 0
vips bandjoin "rgb.v alpha.v" rgba.v
vips pngsave rgba.v alpha.png --compression 9 --filter all --strip

# An animated GIF: three 500x300 frames stacked, saved as pages.
gradient 500 900 frames
vips gifsave frames.v animated.gif --page-height 300 --dither 0 --strip

# WebP, lossy, and an animated one (two 320x240 frames).
gradient 640 480 web
vips webpsave web.v photo.webp --Q 75 --strip
gradient 320 480 webframes
vips webpsave webframes.v animated.webp --Q 75 --page-height 240 --strip

# Small enough never to be enlarged.
gradient 100 50 small
vips jpegsave small.v small.jpg --Q 85 --strip

# Colour: a CMYK JPEG (no profile: libvips assumes its own CMYK one) and one with a
# Display P3 profile embedded.
gradient 300 200 colour
vips icc_export colour.v cmyk-profiled.v --output-profile cmyk
vips jpegsave cmyk-profiled.v cmyk.jpg --Q 85 --strip
vips icc_export colour.v p3.jpg --output-profile p3

# A format libvips reads and the gateway does not let it.
gradient 8 8 tiny
vips tiffsave tiny.v tiny.tif --strip

cp photo-gps.jpg rotated.jpg alpha.png animated.gif photo.webp animated.webp small.jpg cmyk.jpg p3.jpg tiny.tif "$here/"

# Fuzz seeds: tiny valid images of each kind, and broken ones.
mkdir -p "$seeds"
gradient 48 32 seed
vips jpegsave seed.v "$seeds/seed.jpg" --Q 70
exiftool -q -overwrite_original -n -Orientation=8 -GPSLatitude=1 -GPSLatitudeRef=N "$seeds/seed.jpg"
vips jpegsave seed.v "$seeds/seed-progressive.jpg" --Q 70 --interlace --strip
vips extract_band seed.v seedalpha.v 1
vips bandjoin "seed.v seedalpha.v" seedrgba.v
vips pngsave seedrgba.v "$seeds/seed.png" --strip
vips pngsave seed.v "$seeds/seed-interlaced.png" --interlace --strip
vips colourspace seed.v seedgrey.v b-w
vips pngsave seedgrey.v "$seeds/seed-grey16.png" --bitdepth 16 --strip
gradient 24 48 seedframes
vips gifsave seedframes.v "$seeds/seed.gif" --page-height 16 --strip
vips webpsave seed.v "$seeds/seed.webp" --Q 60 --strip
vips webpsave seedrgba.v "$seeds/seed-lossless.webp" --lossless --strip
vips webpsave seedframes.v "$seeds/seed-animated.webp" --page-height 16 --strip
for f in seed.jpg seed.png seed.gif seed.webp; do
  size=$(stat -c %s "$seeds/$f")
  head -c $((size / 2)) "$seeds/$f" >"$seeds/truncated-$f"
done
printf 'GIF89a\xff\xff\xff\xff\x00\x00\x00' >"$seeds/gif-huge-screen"
printf '\x89PNG\r\n\x1a\n' >"$seeds/png-signature-only"
printf '\xff\xd8\xff\xe0\x00\x10JFIF\x00' >"$seeds/jpeg-start-only"
printf 'RIFF\x10\x00\x00\x00WEBPVP8 ' >"$seeds/webp-start-only"
sb_log "wrote $(ls "$here" | grep -vc make-fixtures.sh) fixtures to $here and $(ls "$seeds" | wc -l) seeds to $seeds"
