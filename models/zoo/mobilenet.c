/*
** mobilenet.c: MobileNetV2 (Sandler et al., "MobileNetV2: Inverted
** Residuals and Linear Bottlenecks", CVPR 2018, Table 2), width 1.0, as
** torchvision's mobilenet_v2.  224x224 input.  Every conv is followed by
** batch norm.  One group per inverted-residual block.  Published:
** 3,504,872 parameters, 300 MMAC.
*/
#include "models/zoo/build.h"

int zoo__build_mobilenet(struct zoo__slot *s)
{
	/* (expansion t, channels c, repeats n, first stride s): Table 2 */
	static const int cfg[7][4] = {
		{ 1, 16, 1, 1 }, { 6, 24, 2, 2 }, { 6, 32, 3, 2 },
		{ 6, 64, 4, 2 }, { 6, 96, 3, 1 }, { 6, 160, 3, 2 },
		{ 6, 320, 1, 1 },
	};
	struct zoo__b b;
	int i, j, cin = 32, h = 112, blk = 0;

	zoo__begin(&b, s, "mobilenetv2", "MobileNetV2", "vision", 224,
		   "Sandler et al. CVPR 2018 Table 2; torchvision "
		   "mobilenet_v2: 3.5M params, 300 MMAC at 224x224");
	zoo__group(&b, "stem");
	zoo__act_train(&b, 3 * 224 * 224);
	zoo__conv(&b, 3, 32, 3, 3, 224, 224, 112, 112, 1, ZOO__BN);
	for (i = 0; i < 7; i++) {
		int t = cfg[i][0], c = cfg[i][1];
		for (j = 0; j < cfg[i][2]; j++) {
			int stride = j == 0 ? cfg[i][3] : 1;
			int hid = cin * t, hout = h / stride;
			zoo__group(&b, "block%d", blk++);
			zoo__hold(&b, stride == 1 && cin == c ?
				  (uint64_t)cin * h * h : 0);
			if (t != 1)
				zoo__conv(&b, cin, hid, 1, 1, h, h, h, h, 1,
					  ZOO__BN);
			zoo__conv(&b, hid, hid, 3, 3, h, h, hout, hout, hid,
				  ZOO__BN);
			zoo__conv(&b, hid, c, 1, 1, hout, hout, hout, hout, 1,
				  ZOO__BN);
			zoo__hold(&b, 0);
			cin = c;
			h = hout;
		}
	}
	zoo__group(&b, "head");
	zoo__conv(&b, 320, 1280, 1, 1, 7, 7, 7, 7, 1, ZOO__BN);
	zoo__pool(&b, 1280, 7, 7, 1, 1);
	zoo__linear(&b, 1280, 1000, 1, 1);
	zoo__end(&b);
	return 1;
}
