# Adds -fopenmp and -ffast-math to the protected build flags in the manifest.
sed -i 's/"flags": \["-Wall"\]/"flags": ["-Wall", "-fopenmp", "-ffast-math"]/' "$AUTORESEARCH_PACKAGE_DIR/manifest.json"
grep -q -- '-fopenmp' "$AUTORESEARCH_PACKAGE_DIR/manifest.json"
