"""The greyscale images core reads for image stamps and image masks: checked before decoding, read again when
rewritten."""

import os
import tracemalloc

import numpy as np
import pytest

from core.io.grey_images import IMAGE_MAX_SIDE, read_grey_image
from core.masks import mask_weights


def sparse_npy(path, side):
    """A ``side x side`` float64 .npy whose data is a hole: its header declares the size, the disk holds none."""
    header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 1)))
    header["shape"] = (side, side)
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.truncate(f.tell() + side * side * 8)


def test_a_huge_image_is_refused_by_its_header_before_decoding(tmp_path):
    path = str(tmp_path / "huge.npy")
    sparse_npy(path, 30000)  # 7.2 GB declared
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=rf"filters\[0\]\.mask\.image: .*30000 x 30000.*{IMAGE_MAX_SIDE}"):
            mask_weights(
                {"source": "image", "image": path},
                np.zeros((9, 9), np.float32),
                cell_size=1.0,
                height=1.0,
                where="filters[0].mask.",
            )
        assert tracemalloc.get_traced_memory()[1] < 16 << 20
    finally:
        tracemalloc.stop()


def test_a_folder_or_fifo_is_not_a_regular_file(tmp_path):
    (tmp_path / "d.npy").mkdir()
    os.mkfifo(tmp_path / "f.npy")
    for name in ("d.npy", "f.npy"):
        with pytest.raises(ValueError, match=r"image\.image: .* is not a regular file"):
            read_grey_image(str(tmp_path / name), "image.image")
    with pytest.raises(ValueError, match=r"image\.image: no such file"):
        read_grey_image(str(tmp_path / "none.npy"), "image.image")


def test_a_file_rewritten_with_its_old_times_is_read_again(tmp_path):
    path = str(tmp_path / "a.npy")
    np.save(path, np.float32([[0.0, 1.0], [2.0, 3.0]]))
    first = read_grey_image(path, "image.image")
    info = os.stat(path)
    np.save(path, np.float32([[3.0, 2.0], [1.0, 0.0]]))  # same size
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # as cp -p or rsync -t leave it
    again = read_grey_image(path, "image.image")
    assert first.tolist() == [[0.0, 1.0], [2.0, 3.0]] and again.tolist() == [[3.0, 2.0], [1.0, 0.0]]
    assert not again.flags.writeable
