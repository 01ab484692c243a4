"""Movies: camera paths (keyframes are ViewStates), frames through one View,
encoded to MP4, GIF or PNG frames."""
