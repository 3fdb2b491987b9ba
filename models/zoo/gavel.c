/*
** gavel.c: the job types of Gavel (Narayanan et al., OSDI 2020), as its
** workload code builds them (github.com/stanford-futuredata/gavel,
** workloads/pytorch/ and scheduler/job_table.py), so that Gavel's solo
** throughputs (../shared/measurements/gavel-solo/) can be expressed.  The
** seventh type, ResNet-50 on ImageNet, is the zoo's resnet50.
**
**   resnet18-cifar10      image_classification/cifar10: kuangliu's ResNet18
**                         for 32x32 inputs (BasicBlocks [2,2,2,2], 10
**                         classes): 11,173,962 parameters, 0.56 GMAC
**   transformer-multi30k  translation/: "Attention is all you need" of
**                         jadore801120 (6+6 layers, d 512, FFN 2048, 8
**                         heads, -proj_share_weight), Multi30k
**   lstm-wikitext2        language_modeling/: PyTorch's word_language_model
**                         defaults (2-layer LSTM, emsize = nhid = 200, bptt
**                         35, untied), WikiText-2 vocabulary 33,278
**   autoencoder-ml20m     recommendation/: Recoder DynamicAutoencoder
**                         (hidden [200], tanh) over ML-20M items
**   a3c-pong              rl/: dgriff777's A3Clstm on 80x80 Pong frames,
**                         4 workers, 20 steps per update
**   cyclegan              cyclegan/: eriklindernoren's CycleGAN (ResNet
**                         generators with 9 blocks, PatchGAN
**                         discriminators), 256x256, batch 1
**
** Assumptions (each also in docs/MODEL.md, "The model zoo"): the Multi30k
** vocabularies (3,000 tokens each, the order of the preprocessed
** vocabulary at a minimum count of 5) and padded length (30 tokens); the
** ML-20M item count (20,108, the count after the usual VAE-CF
** preprocessing) and a dense output (Recoder samples negatives, so the
** real work is smaller); A3C's update as one "sample" of 4 x 20 frames.
** The measured fits (models/train_fits.c) absorb what these leave out.
*/
#include "models/zoo/build.h"

/* kuangliu BasicBlock: 3x3 cin->c (stride), 3x3 c->c, projection when the
** shape changes; h the input side. */
static void basic(struct zoo__b *b, int cin, int c, int h, int hout)
{
	zoo__hold(b, (uint64_t)cin * h * h);
	zoo__conv(b, cin, c, 3, 3, h, h, hout, hout, 1, ZOO__BN);
	zoo__conv(b, c, c, 3, 3, hout, hout, hout, hout, 1, ZOO__BN);
	if (cin != c || h != hout)
		zoo__conv(b, cin, c, 1, 1, h, h, hout, hout, 1, ZOO__BN);
	zoo__hold(b, 0);
}

static void resnet18_cifar(struct zoo__slot *s)
{
	static const int width[4] = { 64, 128, 256, 512 };
	struct zoo__b b;
	int stage, i, cin = 64, h = 32;

	zoo__begin(&b, s, "resnet18-cifar10", "ResNet-18 (CIFAR-10)",
		   "vision", 32,
		   "He et al. CVPR 2016; kuangliu pytorch-cifar ResNet18 "
		   "(Gavel and Lucid workloads): 11.17M params, 0.56 GMAC");
	zoo__meta(&b, 128, "Gavel (OSDI'20) job type ResNet-18; Lucid "
		  "(ASPLOS'23) ResNet18 CIFAR-10");
	zoo__group(&b, "stem");
	zoo__act_train(&b, 3 * 32 * 32);
	zoo__conv(&b, 3, 64, 3, 3, 32, 32, 32, 32, 1, ZOO__BN);
	for (stage = 0; stage < 4; stage++)
		for (i = 0; i < 2; i++) {
			int hout = (stage > 0 && i == 0) ? h / 2 : h;

			zoo__group(&b, "layer%d.%d", stage + 1, i);
			basic(&b, cin, width[stage], h, hout);
			cin = width[stage];
			h = hout;
		}
	zoo__group(&b, "fc");
	zoo__pool(&b, 512, 4, 4, 1, 1);
	zoo__linear(&b, 512, 10, 1, 1);
	zoo__end(&b);
}

/* One attention sub-layer over s tokens with keys from k tokens: q, k, v
** and output projections with biases, a LayerNorm, 4 s k d FLOPs of
** scores and weighted sums. */
static void attention(struct zoo__b *b, int d, int s, int k)
{
	zoo__linear(b, d, d, s, 1);                  /* w_qs */
	zoo__linear(b, d, 2 * d, k, 1);              /* w_ks, w_vs */
	zoo__flops(b, 4.0 * s * (double)k * d);
	zoo__linear(b, d, d, s, 1);                  /* fc */
	zoo__params(b, 2 * (uint64_t)d);             /* layer_norm */
}

static void transformer_multi30k(struct zoo__slot *s)
{
	enum { D = 512, F = 2048, H = 8, L = 6, S = 30, VSRC = 3000,
	       VTGT = 3000 };
	struct zoo__b b;
	int i;

	zoo__begin(&b, s, "transformer-multi30k", "Transformer (Multi30k)",
		   "nlp", S,
		   "Vaswani et al. NeurIPS 2017 base (6+6 layers, d 512, FFN "
		   "2048, 8 heads); jadore801120 attention-is-all-you-need-"
		   "pytorch, shared target projection; vocab 3000+3000 and 30 "
		   "tokens assumed");
	zoo__meta(&b, 64, "Gavel (OSDI'20) job type Transformer; Lucid "
		  "(ASPLOS'23) Transformer Multi30k");
	b.manual_act = 1;
	zoo__group(&b, "embed");
	/* the sinusoid position tables are frozen: not trained parameters */
	zoo__params(&b, (uint64_t)(VSRC + VTGT) * D);
	zoo__act_train(&b, 2 * (uint64_t)S * D);
	for (i = 0; i < L; i++) {
		zoo__group(&b, "enc.%d", i);
		attention(&b, D, S, S);
		zoo__linear(&b, D, F, S, 1);
		zoo__linear(&b, F, D, S, 1);
		zoo__params(&b, 2 * (uint64_t)D);
		/* Korthikanti et al. eq. 1, in elements */
		zoo__act_train(&b, (uint64_t)S * D * 17 +
			       (uint64_t)5 * H * S * S / 2);
		zoo__act_live(&b, 5 * (uint64_t)S * D + (uint64_t)H * S * S);
	}
	for (i = 0; i < L; i++) {
		zoo__group(&b, "dec.%d", i);
		attention(&b, D, S, S);              /* masked self-attention */
		attention(&b, D, S, S);              /* over the encoder */
		zoo__linear(&b, D, F, S, 1);
		zoo__linear(&b, F, D, S, 1);
		zoo__params(&b, 2 * (uint64_t)D);
		zoo__act_train(&b, (uint64_t)S * D * 25 +
			       (uint64_t)5 * H * S * S);
		zoo__act_live(&b, 7 * (uint64_t)S * D + (uint64_t)H * S * S);
	}
	zoo__group(&b, "head");
	/* tgt_word_prj shares the target embedding: FLOPs, no parameters */
	zoo__flops(&b, 2.0 * S * (double)D * VTGT);
	zoo__act_train(&b, (uint64_t)S * VTGT);
	zoo__act_live(&b, (uint64_t)S * (D + VTGT));
	zoo__end(&b);
}

static void lstm_wikitext2(struct zoo__slot *s)
{
	enum { V = 33278, E = 200, HID = 200, T = 35 };
	struct zoo__b b;

	zoo__begin(&b, s, "lstm-wikitext2", "LSTM LM (WikiText-2)", "nlp", T,
		   "PyTorch examples word_language_model defaults: 2-layer "
		   "LSTM, emsize 200, nhid 200, untied, bptt 35; WikiText-2 "
		   "vocabulary 33278: 13,987,678 params");
	zoo__meta(&b, 20, "Gavel (OSDI'20) job type LM");
	zoo__group(&b, "embed");
	zoo__params(&b, (uint64_t)V * E);
	zoo__act_train(&b, (uint64_t)T * E);
	zoo__group(&b, "lstm.0");
	zoo__lstm(&b, E, HID, T);
	zoo__group(&b, "lstm.1");
	zoo__lstm(&b, HID, HID, T);
	zoo__group(&b, "decoder");
	zoo__linear(&b, HID, V, T, 1);
	zoo__end(&b);
}

static void autoencoder_ml20m(struct zoo__slot *s)
{
	enum { ITEMS = 20108, HID = 200 };
	struct zoo__b b;

	zoo__begin(&b, s, "autoencoder-ml20m", "Autoencoder (ML-20M)",
		   "recsys", ITEMS,
		   "Recoder DynamicAutoencoder(hidden_layers=[200], tanh) "
		   "over 20,108 ML-20M items (assumed, VAE-CF preprocessing); "
		   "dense output assumed");
	zoo__meta(&b, 2048, "Gavel (OSDI'20) job type Recommendation");
	zoo__group(&b, "encoder");
	zoo__act_train(&b, ITEMS);
	zoo__linear(&b, ITEMS, HID, 1, 1);
	zoo__group(&b, "decoder");
	zoo__linear(&b, HID, ITEMS, 1, 1);
	zoo__end(&b);
}

static void a3c_pong(struct zoo__slot *s)
{
	enum { FRAMES = 4 * 20 };   /* 4 workers x 20 steps per update */
	struct zoo__b b;
	size_t g;

	zoo__begin(&b, s, "a3c-pong", "A3C (Pong)", "rl", 80,
		   "dgriff777 rl_a3c_pytorch A3Clstm: 4 conv (32,32,64,64) + "
		   "max-pool, LSTMCell(1024, 512), actor 6 + critic; 80x80 "
		   "frames; a sample = one update of 4 workers x 20 steps");
	zoo__meta(&b, 1, "Gavel (OSDI'20) job type A3C");
	zoo__group(&b, "conv");
	zoo__act_train(&b, 80 * 80);
	zoo__conv(&b, 1, 32, 5, 5, 80, 80, 80, 80, 1, ZOO__BIAS);
	zoo__pool(&b, 32, 80, 80, 40, 40);
	zoo__conv(&b, 32, 32, 5, 5, 40, 40, 38, 38, 1, ZOO__BIAS);
	zoo__pool(&b, 32, 38, 38, 19, 19);
	zoo__conv(&b, 32, 64, 4, 4, 19, 19, 18, 18, 1, ZOO__BIAS);
	zoo__pool(&b, 64, 18, 18, 9, 9);
	zoo__conv(&b, 64, 64, 3, 3, 9, 9, 9, 9, 1, ZOO__BIAS);
	zoo__pool(&b, 64, 9, 9, 4, 4);
	zoo__group(&b, "lstm");
	zoo__lstm(&b, 1024, 512, 1);
	zoo__group(&b, "heads");
	zoo__linear(&b, 512, 1, 1, 1);
	zoo__linear(&b, 512, 6, 1, 1);
	/* the layers above are one frame; an update runs FRAMES of them */
	for (g = 0; g < s->m.ngroups; g++)
		s->g[g].fwd_flops *= FRAMES;
	b.act_train_elems *= FRAMES;
	zoo__end(&b);
}

/* A CycleGAN generator (eriklindernoren GeneratorResNet, 9 blocks) on
** 3 x 256 x 256: conv 7x7, two stride-2 convs, 9 residual blocks of two
** 3x3 convs at 64x64, two upsample + conv, conv 7x7.  Instance norm has
** no parameters (affine off); every conv has a bias. */
static void generator(struct zoo__b *b)
{
	int i;

	zoo__conv(b, 3, 64, 7, 7, 256, 256, 256, 256, 1, ZOO__BIAS);
	zoo__conv(b, 64, 128, 3, 3, 256, 256, 128, 128, 1, ZOO__BIAS);
	zoo__conv(b, 128, 256, 3, 3, 128, 128, 64, 64, 1, ZOO__BIAS);
	for (i = 0; i < 9; i++) {
		zoo__hold(b, 256 * 64 * 64);
		zoo__conv(b, 256, 256, 3, 3, 64, 64, 64, 64, 1, ZOO__BIAS);
		zoo__conv(b, 256, 256, 3, 3, 64, 64, 64, 64, 1, ZOO__BIAS);
		zoo__hold(b, 0);
	}
	zoo__conv(b, 256, 128, 3, 3, 128, 128, 128, 128, 1, ZOO__BIAS);
	zoo__conv(b, 128, 64, 3, 3, 256, 256, 256, 256, 1, ZOO__BIAS);
	zoo__conv(b, 64, 3, 7, 7, 256, 256, 256, 256, 1, ZOO__BIAS);
}

/* A PatchGAN discriminator on 3 x 256 x 256: four 4x4 stride-2 convs
** (64, 128, 256, 512), a zero pad and a 4x4 conv to one channel. */
static void discriminator(struct zoo__b *b)
{
	zoo__conv(b, 3, 64, 4, 4, 256, 256, 128, 128, 1, ZOO__BIAS);
	zoo__conv(b, 64, 128, 4, 4, 128, 128, 64, 64, 1, ZOO__BIAS);
	zoo__conv(b, 128, 256, 4, 4, 64, 64, 32, 32, 1, ZOO__BIAS);
	zoo__conv(b, 256, 512, 4, 4, 32, 32, 16, 16, 1, ZOO__BIAS);
	zoo__conv(b, 512, 1, 4, 4, 17, 17, 16, 16, 1, ZOO__BIAS);
}

static void cyclegan(struct zoo__slot *s)
{
	struct zoo__b b;
	uint64_t p, a0, ag, ad;
	double fg, fd;

	zoo__begin(&b, s, "cyclegan", "CycleGAN (monet2photo)", "vision",
		   256,
		   "Zhu et al. ICCV 2017; eriklindernoren PyTorch-GAN cyclegan "
		   "(2 ResNet-9 generators, 2 PatchGAN discriminators), "
		   "256x256; a sample = one iteration at batch 1");
	zoo__meta(&b, 1, "Gavel (OSDI'20) job type CycleGAN");
	/* An iteration runs 6 generator and 6 discriminator passes (the
	** identity, GAN and cycle terms, then each discriminator on a real
	** and a fake batch), each with its backward: 6 G + 6 D forward FLOPs
	** and activations per sample; the parameters are two of each. */
	zoo__group(&b, "generators");
	zoo__act_train(&b, 2 * 3 * 256 * 256);
	a0 = b.act_train_elems;
	generator(&b);
	ag = b.act_train_elems - a0;
	fg = s->g[0].fwd_flops;
	p = s->g[0].params;
	zoo__params(&b, p);                       /* G_BA */
	zoo__flops(&b, 5.0 * fg);
	zoo__act_train(&b, 5 * ag);
	zoo__group(&b, "discriminators");
	a0 = b.act_train_elems;
	discriminator(&b);
	ad = b.act_train_elems - a0;
	fd = s->g[1].fwd_flops;
	p = s->g[1].params;
	zoo__params(&b, p);                       /* D_B */
	zoo__flops(&b, 5.0 * fd);
	zoo__act_train(&b, 5 * ad);
	zoo__end(&b);
}

int zoo__build_gavel(struct zoo__slot *s)
{
	resnet18_cifar(&s[0]);
	transformer_multi30k(&s[1]);
	lstm_wikitext2(&s[2]);
	autoencoder_ml20m(&s[3]);
	a3c_pong(&s[4]);
	cyclegan(&s[5]);
	return 6;
}
