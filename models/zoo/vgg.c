/*
** vgg.c: VGG-16 (Simonyan & Zisserman, "Very Deep Convolutional Networks
** for Large-Scale Image Recognition", ICLR 2015, configuration D), without
** batch norm, as torchvision's vgg16.  224x224 input.  One group per
** convolution stage and one per fully connected layer.  Published:
** 138,357,544 parameters, 15.5 GMAC.
*/
#include "models/zoo/build.h"

int zoo__build_vgg(struct zoo__slot *s)
{
	static const int width[5] = { 64, 128, 256, 512, 512 };
	static const int convs[5] = { 2, 2, 3, 3, 3 };
	struct zoo__b b;
	int stage, i, cin = 3, h = 224;

	zoo__begin(&b, s, "vgg16", "VGG-16", "vision", 224,
		   "Simonyan & Zisserman ICLR 2015, config D; torchvision "
		   "vgg16: 138.4M params, 15.5 GMAC at 224x224");
	for (stage = 0; stage < 5; stage++) {
		zoo__group(&b, "conv%d", stage + 1);
		if (stage == 0)
			zoo__act_train(&b, 3 * 224 * 224);
		for (i = 0; i < convs[stage]; i++) {
			zoo__conv(&b, cin, width[stage], 3, 3, h, h, h, h, 1,
				  ZOO__BIAS);
			/* ReLU output kept besides the conv output */
			zoo__act_train(&b, (uint64_t)width[stage] * h * h);
			cin = width[stage];
		}
		zoo__pool(&b, cin, h, h, h / 2, h / 2);
		h /= 2;
	}
	zoo__group(&b, "fc6");
	zoo__linear(&b, 512 * 7 * 7, 4096, 1, 1);
	zoo__group(&b, "fc7");
	zoo__linear(&b, 4096, 4096, 1, 1);
	zoo__group(&b, "fc8");
	zoo__linear(&b, 4096, 1000, 1, 1);
	zoo__end(&b);
	return 1;
}
