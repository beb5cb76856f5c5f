/*
 * Reads an evemu file with libevemu, as evemu-device and evemu-play do, and
 * prints what libevemu made of it: the device name as hex bytes, the id, then
 * one "type code value" line per event. Exit 1 when libevemu refuses the file.
 * Built and run by test_name_roundtrip.py.
 */
#include <evemu.h>
#include <linux/input.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct evemu_device *dev;
	struct input_event ev;
	const unsigned char *name;
	FILE *fp;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.evemu\n", argv[0]);
		return 2;
	}
	fp = fopen(argv[1], "r");
	if (!fp) {
		perror(argv[1]);
		return 2;
	}
	dev = evemu_new(NULL);
	if (!dev || evemu_read(dev, fp) <= 0) {
		fprintf(stderr, "evemu_read refused %s\n", argv[1]);
		return 1;
	}
	printf("name ");
	for (name = (const unsigned char *)evemu_get_name(dev); *name; name++)
		printf("%02x", *name);
	printf("\nid %u %u %u %u\n", evemu_get_id_bustype(dev), evemu_get_id_vendor(dev),
	       evemu_get_id_product(dev), evemu_get_id_version(dev));
	while ((rc = evemu_read_event(fp, &ev)) > 0)
		printf("%u %u %d\n", ev.type, ev.code, ev.value);
	evemu_delete(dev);
	fclose(fp);
	if (rc < 0) {
		fprintf(stderr, "evemu_read_event refused a line of %s\n", argv[1]);
		return 1;
	}
	return 0;
}
