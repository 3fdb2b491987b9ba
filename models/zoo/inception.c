/*
** inception.c: Inception-v3 (Szegedy et al., "Rethinking the Inception
** Architecture for Computer Vision", CVPR 2016), as torchvision's
** inception_v3 without the auxiliary classifier (used only while training
** for its extra loss; it is left out here, see docs/MODEL.md).  299x299
** input.  Every convolution is a BasicConv2d: conv without bias + batch
** norm.  One group per stem stage and per Mixed block.  Published:
** 23,834,568 parameters (torchvision, aux_logits=False), Keras
** InceptionV3 23,851,784 (it adds BN statistics); 5.7 GMAC.
*/
#include "models/zoo/build.h"

/* BasicConv2d on a square map hin -> hout. */
static void C(struct zoo__b *b, int cin, int cout, int kh, int kw, int hin,
	      int hout)
{
	zoo__conv(b, cin, cout, kh, kw, hin, hin, hout, hout, 1, ZOO__BN);
}

static void block_a(struct zoo__b *b, int in, int pool_features)
{
	const int h = 35;

	zoo__hold(b, (uint64_t)in * h * h + (uint64_t)(224 + pool_features) * h * h);
	C(b, in, 64, 1, 1, h, h);
	C(b, in, 48, 1, 1, h, h);
	C(b, 48, 64, 5, 5, h, h);
	C(b, in, 64, 1, 1, h, h);
	C(b, 64, 96, 3, 3, h, h);
	C(b, 96, 96, 3, 3, h, h);
	zoo__pool(b, in, h, h, h, h);
	C(b, in, pool_features, 1, 1, h, h);
	zoo__hold(b, 0);
}

static void block_b(struct zoo__b *b, int in)
{
	zoo__hold(b, (uint64_t)in * 35 * 35 + 768 * 17 * 17);
	C(b, in, 384, 3, 3, 35, 17);
	C(b, in, 64, 1, 1, 35, 35);
	C(b, 64, 96, 3, 3, 35, 35);
	C(b, 96, 96, 3, 3, 35, 17);
	zoo__pool(b, in, 35, 35, 17, 17);
	zoo__hold(b, 0);
}

static void block_c(struct zoo__b *b, int c7)
{
	const int in = 768, h = 17;

	zoo__hold(b, 2 * (uint64_t)in * h * h);
	C(b, in, 192, 1, 1, h, h);
	C(b, in, c7, 1, 1, h, h);
	C(b, c7, c7, 1, 7, h, h);
	C(b, c7, 192, 7, 1, h, h);
	C(b, in, c7, 1, 1, h, h);
	C(b, c7, c7, 7, 1, h, h);
	C(b, c7, c7, 1, 7, h, h);
	C(b, c7, c7, 7, 1, h, h);
	C(b, c7, 192, 1, 7, h, h);
	zoo__pool(b, in, h, h, h, h);
	C(b, in, 192, 1, 1, h, h);
	zoo__hold(b, 0);
}

static void block_d(struct zoo__b *b)
{
	const int in = 768;

	zoo__hold(b, (uint64_t)in * 17 * 17 + 1280 * 8 * 8);
	C(b, in, 192, 1, 1, 17, 17);
	C(b, 192, 320, 3, 3, 17, 8);
	C(b, in, 192, 1, 1, 17, 17);
	C(b, 192, 192, 1, 7, 17, 17);
	C(b, 192, 192, 7, 1, 17, 17);
	C(b, 192, 192, 3, 3, 17, 8);
	zoo__pool(b, in, 17, 17, 8, 8);
	zoo__hold(b, 0);
}

static void block_e(struct zoo__b *b, int in)
{
	const int h = 8;

	zoo__hold(b, (uint64_t)in * h * h + 2048 * h * h);
	C(b, in, 320, 1, 1, h, h);
	C(b, in, 384, 1, 1, h, h);
	C(b, 384, 384, 1, 3, h, h);
	C(b, 384, 384, 3, 1, h, h);
	C(b, in, 448, 1, 1, h, h);
	C(b, 448, 384, 3, 3, h, h);
	C(b, 384, 384, 1, 3, h, h);
	C(b, 384, 384, 3, 1, h, h);
	zoo__pool(b, in, h, h, h, h);
	C(b, in, 192, 1, 1, h, h);
	zoo__hold(b, 0);
}

int zoo__build_inception(struct zoo__slot *s)
{
	struct zoo__b b;

	zoo__begin(&b, s, "inception3", "Inception-v3", "vision", 299,
		   "Szegedy et al. CVPR 2016; torchvision inception_v3 "
		   "(aux_logits=False): 23.8M params, 5.7 GMAC at 299x299");
	zoo__group(&b, "stem");
	zoo__act_train(&b, 3 * 299 * 299);
	C(&b, 3, 32, 3, 3, 299, 149);
	C(&b, 32, 32, 3, 3, 149, 147);
	C(&b, 32, 64, 3, 3, 147, 147);
	zoo__pool(&b, 64, 147, 147, 73, 73);
	C(&b, 64, 80, 1, 1, 73, 73);
	C(&b, 80, 192, 3, 3, 73, 71);
	zoo__pool(&b, 192, 71, 71, 35, 35);
	zoo__group(&b, "mixed5b");
	block_a(&b, 192, 32);
	zoo__group(&b, "mixed5c");
	block_a(&b, 256, 64);
	zoo__group(&b, "mixed5d");
	block_a(&b, 288, 64);
	zoo__group(&b, "mixed6a");
	block_b(&b, 288);
	zoo__group(&b, "mixed6b");
	block_c(&b, 128);
	zoo__group(&b, "mixed6c");
	block_c(&b, 160);
	zoo__group(&b, "mixed6d");
	block_c(&b, 160);
	zoo__group(&b, "mixed6e");
	block_c(&b, 192);
	zoo__group(&b, "mixed7a");
	block_d(&b);
	zoo__group(&b, "mixed7b");
	block_e(&b, 1280);
	zoo__group(&b, "mixed7c");
	block_e(&b, 2048);
	zoo__group(&b, "fc");
	zoo__pool(&b, 2048, 8, 8, 1, ZOO__BN);
	zoo__linear(&b, 2048, 1000, 1, 1);
	zoo__end(&b);
	return 1;
}
