/*
** densenet.c: DenseNet-201 (Huang et al., "Densely Connected Convolutional
** Networks", CVPR 2017, Table 1: growth rate 32, blocks of 6, 12, 48, 32
** layers, bottleneck width 4 x 32, compression 0.5), as torchvision's
** densenet201.  Each dense layer is BN-ReLU-conv1x1-BN-ReLU-conv3x3
** (pre-activation); each transition BN-ReLU-conv1x1-avgpool.  224x224
** input.  One group per dense block and per transition.  Published:
** 20,013,928 parameters, 4.3 GMAC.
*/
#include "models/zoo/build.h"

int zoo__build_densenet(struct zoo__slot *s)
{
	static const int layers[4] = { 6, 12, 48, 32 };
	const int k = 32, bottleneck = 4 * 32;
	struct zoo__b b;
	int blk, i, c = 64, h = 56;

	zoo__begin(&b, s, "densenet201", "DenseNet-201", "vision", 224,
		   "Huang et al. CVPR 2017 Table 1; torchvision densenet201: "
		   "20.0M params, 4.3 GMAC at 224x224");
	zoo__group(&b, "stem");
	zoo__act_train(&b, 3 * 224 * 224);
	zoo__conv(&b, 3, 64, 7, 7, 224, 224, 112, 112, 1, ZOO__BN);
	zoo__pool(&b, 64, 112, 112, 56, 56);
	for (blk = 0; blk < 4; blk++) {
		zoo__group(&b, "dense%d", blk + 1);
		for (i = 0; i < layers[blk]; i++) {
			/* the concatenated features so far stay live */
			zoo__hold(&b, (uint64_t)c * h * h);
			zoo__bn(&b, c, h, h);
			zoo__conv(&b, c, bottleneck, 1, 1, h, h, h, h, 1,
				  ZOO__NONE);
			zoo__bn(&b, bottleneck, h, h);
			zoo__conv(&b, bottleneck, k, 3, 3, h, h, h, h, 1,
				  ZOO__NONE);
			c += k;
		}
		zoo__hold(&b, 0);
		if (blk < 3) {
			zoo__group(&b, "trans%d", blk + 1);
			zoo__bn(&b, c, h, h);
			zoo__conv(&b, c, c / 2, 1, 1, h, h, h, h, 1, ZOO__NONE);
			zoo__pool(&b, c / 2, h, h, h / 2, h / 2);
			c /= 2;
			h /= 2;
		}
	}
	zoo__group(&b, "head");
	zoo__bn(&b, c, h, h);
	zoo__pool(&b, c, h, h, 1, 1);
	zoo__linear(&b, c, 1000, 1, 1);
	zoo__end(&b);
	return 1;
}
