/*
** resnet.c: ResNet-50 and ResNet-152 (He et al., "Deep Residual Learning
** for Image Recognition", CVPR 2016, Table 1), as torchvision builds them
** (v1.5: the stride of a down-sampling bottleneck is on its 3x3 conv).
** 224x224 input.  One layer group per bottleneck block, plus the stem and
** the classifier, so that pipelined loading can stream block by block.
** Published: ResNet-50 25,557,032 parameters, 4.1 GMAC; ResNet-152
** 60,192,808 parameters, 11.5 GMAC (torchvision model table).
*/
#include "models/zoo/build.h"

/* A bottleneck: 1x1 cin->mid at hin, 3x3 mid->mid (stride) to hout,
** 1x1 mid->out; a projection shortcut when the shape changes. */
static void bottleneck(struct zoo__b *b, int cin, int mid, int out, int hin,
		       int hout)
{
	/* the block input stays live for the residual add */
	zoo__hold(b, (uint64_t)cin * hin * hin);
	zoo__conv(b, cin, mid, 1, 1, hin, hin, hin, hin, 1, ZOO__BN);
	zoo__conv(b, mid, mid, 3, 3, hin, hin, hout, hout, 1, ZOO__BN);
	zoo__conv(b, mid, out, 1, 1, hout, hout, hout, hout, 1, ZOO__BN);
	if (cin != out || hin != hout)
		zoo__conv(b, cin, out, 1, 1, hin, hin, hout, hout, 1, ZOO__BN);
	zoo__hold(b, 0);
}

static void resnet(struct zoo__slot *s, const char *name, const char *display,
		   const int blocks[4], const char *source)
{
	static const int mids[4] = { 64, 128, 256, 512 };
	struct zoo__b b;
	int stage, i, cin = 64, h = 56;

	zoo__begin(&b, s, name, display, "vision", 224, source);
	zoo__group(&b, "stem");
	zoo__act_train(&b, 3 * 224 * 224);   /* the input image */
	zoo__conv(&b, 3, 64, 7, 7, 224, 224, 112, 112, 1, ZOO__BN);
	zoo__pool(&b, 64, 112, 112, 56, 56);
	for (stage = 0; stage < 4; stage++) {
		int mid = mids[stage], out = 4 * mid;
		for (i = 0; i < blocks[stage]; i++) {
			int hout = (stage > 0 && i == 0) ? h / 2 : h;
			zoo__group(&b, "layer%d.%d", stage + 1, i);
			bottleneck(&b, cin, mid, out, h, hout);
			cin = out;
			h = hout;
		}
	}
	zoo__group(&b, "fc");
	zoo__pool(&b, 2048, 7, 7, 1, ZOO__BN);
	zoo__linear(&b, 2048, 1000, 1, 1);
	zoo__end(&b);
}

int zoo__build_resnet(struct zoo__slot *s)
{
	static const int r50[4] = { 3, 4, 6, 3 }, r152[4] = { 3, 8, 36, 3 };

	resnet(&s[0], "resnet50", "ResNet-50", r50,
	       "He et al. CVPR 2016 Table 1; torchvision resnet50 (v1.5): "
	       "25.6M params, 4.1 GMAC at 224x224");
	resnet(&s[1], "resnet152", "ResNet-152", r152,
	       "He et al. CVPR 2016 Table 1; torchvision resnet152: "
	       "60.2M params, 11.5 GMAC at 224x224");
	return 2;
}
