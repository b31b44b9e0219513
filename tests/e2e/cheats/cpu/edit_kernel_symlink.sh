# Turns the editable kernel.cpp into a symbolic link to a protected file.
ln -sf problem.cpp "$AUTORESEARCH_PACKAGE_DIR/kernel.cpp"
