"""Pictures of a scene without a display: render offscreen and write PNG files."""
import os

from .errors import TraceError


def render_image(scene, size=(1280, 720), view="iso", quality="fast"):
    """The scene drawn offscreen from a named or (azimuth, elevation) view: an
    (h, w, 3) uint8 array, and the camera's projection (for picking)."""
    from .scene import view as views
    from .scene.pick import Projection
    az, el = views.parse_view(view) if isinstance(view, str) else view
    rw, ren = views.offscreen_window(*size, quality=quality)
    scene.add_to(ren)
    views.set_view(ren, scene.world_bounds(), az, el)
    scene.fit_detail(ren)
    return views.snapshot(rw), Projection.of(ren)


def write_png(image, path):
    import imageio.v3 as iio
    try:
        iio.imwrite(path, image, extension=".png")
    except OSError as e:
        raise TraceError(path, None, f"cannot write the image: {e.strerror or e}") from None
    return os.path.getsize(path)
