#!/usr/bin/env bash
# Rebuild the curated topologies with triva3d's own converter (tests check that the
# committed files equal what this script writes).
#   topologies/src/*.xml       -> topologies/NAME.dot   (point-to-point links as edges)
#   ../shared/data/platforms/g5k.xml -> topologies/g5k.dot (links as nodes, as SimGrid traces have them)
set -euo pipefail
cd "$(dirname "$0")"
T3D=${TRIVA3D:-triva3d}
for src in src/*.xml; do
    name=$(basename "$src" .xml)
    "$T3D" topology convert "$src" -o "$name.dot" --links edges
done
g5k=../../shared/data/platforms/g5k.xml
if [ -f "$g5k" ]; then
    "$T3D" topology convert "$g5k" -o g5k.dot
fi
