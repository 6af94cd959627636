/* test_diskguard.c — the reserve the disk guard and the export keep. */
#include "diskguard.h"
#include "t.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

T(reserve_is_five_percent_capped_and_at_most_half_of_the_free_space)
{
	CHECK(disk_reserve(100 * MiB, 90 * MiB, DISK_RESERVE_BYTES_CAP) == 5 * MiB);
	CHECK(disk_reserve(250 * GiB, 100 * GiB, DISK_RESERVE_BYTES_CAP) == GiB);
	CHECK(disk_reserve(250 * GiB, 287 * MiB, DISK_RESERVE_BYTES_CAP) == 287 * MiB / 2);
	CHECK(disk_reserve(0, 0, DISK_RESERVE_BYTES_CAP) == 0);
}

/* A large disk with 287 MiB free (below its 1 GiB reserve before any run):
 * a small export still fits; one that would take over half of it does not. */
T(room_fits_on_a_nearly_full_large_disk)
{
	struct fs_room r = {.bytes_avail = 287 * MiB, .bytes_total = 250 * GiB,
	                    .inodes_avail = 1000000, .inodes_total = 16000000};
	CHECK(fs_room_fits(&r, 2 * MiB, 64));
	CHECK(fs_room_fits(&r, 143 * MiB, 64));
	CHECK(!fs_room_fits(&r, 144 * MiB, 64));
	/* with plenty free, the full reserve stays */
	r.bytes_avail = 2 * GiB;
	CHECK(fs_room_fits(&r, GiB - MiB, 64));
	CHECK(!fs_room_fits(&r, GiB + MiB, 64));
	/* inodes: the same rule */
	r.inodes_avail = 100;
	CHECK(fs_room_fits(&r, MiB, 50));
	CHECK(!fs_room_fits(&r, MiB, 51));
	r.inodes_total = 0;  /* no inode count (btrfs): not watched */
	CHECK(fs_room_fits(&r, MiB, 1000000));
}
